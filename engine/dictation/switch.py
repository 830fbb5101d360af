"""Dictation switched on and off over a running session: the one place that puts a
``DictationSink`` on a session and takes it off again, for ``livecap dictate`` and the window.

A sink is one stretch of typing, so "on" makes a new sink (it types from the next settled word)
and "off" stops it (nothing more is typed once ``detach`` returns). The control socket's thread,
the UI thread and a typing thread that fails may all switch it; a lock keeps one sink at most.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable

from engine.dictation.sink import DictationSink
from engine.dictation.typed_text import TypedTail
from engine.dictation.typists import Typist

DICTATING, PAUSED = "dictating", "paused"  # what the control socket answers


class DictationSwitch:
    def __init__(
        self,
        typist: Typist,
        commands: Iterable[str] = (),
        own_windows: Callable[[], Iterable[str]] = tuple,
        on_error: Callable[[str], None] | None = None,
        own_window_active: Callable[[], bool] | None = None,
    ):
        """``own_windows`` is asked at each ``attach``: a window's id can change while it lives.
        ``on_error`` and ``own_window_active`` go to each sink (see ``DictationSink``)."""
        self.typist = typist
        self._commands = frozenset(commands)
        self._own_windows, self._on_error, self._own_window_active = own_windows, on_error, own_window_active
        self._lock = threading.Lock()
        self._sink: DictationSink | None = None
        self._tail: TypedTail | None = None  # where the last sink stopped typing: the next continues it
        self._session = None
        self.closed = threading.Event()  # ``close`` was called: it never types again

    @property
    def sink(self) -> DictationSink | None:
        return self._sink

    @property
    def state(self) -> str:
        return DICTATING if self._sink is not None else PAUSED

    def attach(self, session) -> str:
        """Type ``session``'s settled words from the next one on (nothing if already typing or
        closed)."""
        with self._lock:
            if self._sink is None and not self.closed.is_set():
                self._sink = DictationSink(
                    self.typist,
                    self._commands,
                    self._own_windows(),
                    on_error=self._on_error,
                    own_window_active=self._own_window_active,
                    resume=self._tail,
                ).start()
                self._session = session
                session.subscribe(self._sink)
            return self.state

    def detach(self) -> str:
        """Stop typing: nothing more is typed once this returns, not even what was queued."""
        sink = self.release()
        if sink is not None:
            sink.stop()
        return PAUSED

    def toggle(self, session) -> str:
        """``attach`` or ``detach``; the state it leaves."""
        return self.detach() if self._sink is not None else self.attach(session)

    def release(self) -> DictationSink | None:
        """Take the sink off its session without stopping it, for a session that has ended:
        the caller may still ``drain`` it (type what was queued), then must ``stop`` it."""
        with self._lock:
            sink, session = self._sink, self._session
            self._sink = self._session = None
            if sink is not None:
                self._tail = sink.text.tail
        if sink is not None and session is not None:
            session.unsubscribe(sink)
        return sink

    def close(self) -> None:
        """Stop typing for good: later ``attach`` calls do nothing."""
        with self._lock:
            self.closed.set()
        self.detach()

    def set_commands(self, commands: Iterable[str]) -> None:
        """The spoken commands obeyed from now on, by the running sink too."""
        with self._lock:
            self._commands = frozenset(commands)
            if self._sink is not None:
                self._sink.text.commands = self._commands  # one atomic swap, read by the typing thread
