"""Handing each batch of events to every subscriber: the one fan-out the engine's threads share.

The punctuation engine and the live session both publish lists of events from their own
threads to callbacks registered from others (the UI, the journal, the terminal). A
subscriber that raises is logged and skipped: one broken sink must not stop the captions.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

Subscriber = Callable[[list], None]


class FanOut:
    """Subscribers to a stream of event lists, called in the order they subscribed."""

    def __init__(self, what: str = "event subscriber"):
        self.what = what  # names the failing kind of subscriber in the log
        self._subscribers: list[Subscriber] = []
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> None:
        with self._lock:
            self._subscribers.append(callback)

    def unsubscribe(self, callback: Subscriber) -> None:
        with self._lock:
            self._subscribers.remove(callback)

    def publish(self, events: list) -> None:
        """Call every subscriber with ``events`` on the calling thread. A subscriber may
        (un)subscribe from inside its callback: the list is copied before the calls."""
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(events)
            except Exception:
                log.exception("%s failed", self.what)
