"""Dictation as a session subscriber: engine events in, keystrokes out, on a thread of its own.

The engine thread only queues its events here (typing takes milliseconds per word and must
never hold up punctuation); the typing thread turns them into keystrokes (``DictationText``)
and sends them with a ``Typist``. One sink is one stretch of dictation: ``stop`` ends it and
nothing more is typed after it returns, even what was still queued. Turning dictation on again
makes a new sink, which starts with the next word said.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable

from engine.dictation.typed_text import DictationText, TypedTail, TypeText
from engine.dictation.typists import Typist

log = logging.getLogger(__name__)

_STOP = object()
OWN_WINDOW = "livecap"  # the focus, when all that is known is that it is one of livecap's windows


class DictationSink:
    QUEUE_BATCHES = 4096  # event batches waiting to be typed: far more than any backlog

    def __init__(
        self,
        typist: Typist,
        commands: Iterable[str] = (),
        own_windows: Iterable[str] = (),
        on_error: Callable[[str], None] | None = None,
        own_window_active: Callable[[], bool] | None = None,
        resume: TypedTail | None = None,
    ):
        """``own_windows``: livecap's windows as the typist names them; ``own_window_active``: says
        whether one of them has the focus, where the typist cannot tell windows apart (Wayland);
        ``resume``: where the dictation before a pause stopped typing (``DictationText``)."""
        self.typist = typist
        self.text = DictationText(commands, own_windows, resume)
        self.on_error = on_error
        self.error: str | None = None
        # (time.time() when sent, text) for every piece typed: what the latency tool reads.
        self.typed: list[tuple[float, str]] = []
        self.cpu_seconds = 0.0  # the typing thread's own CPU so far (not the typing tool's)
        self._queue: queue.Queue = queue.Queue(maxsize=self.QUEUE_BATCHES)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="dictation", daemon=True)
        self._own_pid = os.getpid()
        self._own_window_active = own_window_active
        self._pids: dict[str, int | None] = {}  # window -> its process, looked up once

    # -- lifecycle ----------------------------------------------------------------------------
    def start(self) -> DictationSink:
        self._thread.start()
        return self

    def __call__(self, events: list) -> None:
        """The session subscriber: queue the batch, never block the engine thread for long."""
        if self._stopped.is_set():
            return
        try:
            self._queue.put(events, timeout=1.0)
        except queue.Full:
            self._fail("typing fell too far behind the captions; dictation stopped")

    def drain(self, timeout: float = 30.0) -> bool:
        """Wait until every queued batch has been typed (tests and the end of a file)."""
        done = threading.Event()
        try:
            self._queue.put(done, timeout=timeout)
        except queue.Full:
            return False
        return done.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """End dictation: nothing more is typed once this returns."""
        self._stopped.set()
        try:
            self._queue.put_nowait(_STOP)
        except queue.Full:
            pass
        if self._thread.ident is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._stopped.is_set()

    @property
    def words_typed(self) -> int:
        return self.text.words_typed

    # -- the typing thread ----------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP or self._stopped.is_set():
                self._release_waiters()
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            self.text.add(item)
            if not self.text.ready:
                continue
            try:
                focus = self._focus()
                keystrokes = self.text.keystrokes(focus)
                if self._stopped.is_set():
                    continue
                self.typist.send(keystrokes)
            except Exception as exc:  # the tool vanished, the display went away
                log.exception("dictation failed")
                self._fail(f"dictation stopped: {exc}")
                self._release_waiters()
                return
            now = time.time()
            self.typed += [(now, k.text) for k in keystrokes if isinstance(k, TypeText)]
            self.cpu_seconds = time.thread_time()

    def _focus(self) -> str | None:
        if not self.typist.knows_focus:  # Wayland: only whether livecap itself is in front
            if self._own_window_active is not None and self._own_window_active():
                self.text.own_windows.add(OWN_WINDOW)
                return OWN_WINDOW
            return None
        window = self.typist.focused_window()
        if window is not None and window not in self._pids:
            self._pids[window] = self.typist.window_pid(window)
            if self._pids[window] == self._own_pid:
                self.text.own_windows.add(window)  # livecap's own window: never typed into
        return window

    def _fail(self, message: str) -> None:
        if self.error is None:
            self.error = message
            self._stopped.set()
            if self.on_error is not None:
                self.on_error(message)

    def _release_waiters(self) -> None:
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, threading.Event):
                item.set()
