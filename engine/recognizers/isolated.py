"""Run a recognizer in a child process, so its C library cannot stall the caller's threads.

PocketSphinx's Python binding keeps the GIL while it decodes: while ``process_raw``
and ``end_utt`` run, no other Python thread does (how long: docs/PERFORMANCE.md).
In the app that thread is the UI's, so the window froze
while PocketSphinx finished an utterance. In a child process the decoding
holds the child's GIL only; the recognizer thread here waits on a pipe, which
releases ours. (Vosk's cffi calls release the GIL, so it needs no child.)

``IsolatedRecognizer`` honours the ``Recognizer`` interface: the same calls,
answered by the real recognizer in the child. The child starts at once but is
waited for only on first use, so creating one costs the app no start-up time.
If the child dies, the next call raises ``RecognizerError`` saying so; if the
app dies, the child sees its pipe close and exits. What the recognizer declares
(``base.DECLARATIONS``: its language, whether it writes marks…) comes back with
the child's first message, and reading it waits for that.
"""

from __future__ import annotations

import multiprocessing
import threading

from engine.audio import SAMPLE_RATE
from engine.recognizers.base import DECLARATIONS, RecognizerError, RecognizerUpdate, as_pcm_bytes

# How long to wait for the child to load its model: far longer than PocketSphinx needs even on
# a loaded machine. Past this, something is wrong rather than slow.
START_TIMEOUT = 60.0
CALL_TIMEOUT = 30.0  # one chunk takes milliseconds; an utterance's end at most a second


def _serve(conn, factory, settings: dict) -> None:
    """The child: build the recognizer, then answer calls until told to close or the pipe closes."""
    try:
        recognizer = factory(**settings)
    except BaseException as exc:  # noqa: BLE001  (every failure goes back to the caller, with its message)
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    try:
        declared = {name: getattr(recognizer, name) for name in DECLARATIONS}
    except AttributeError as exc:  # a recognizer that does not declare itself cannot be wrapped
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    conn.send(("ready", declared))
    while True:
        try:
            op, arg = conn.recv()
        except (EOFError, OSError):
            return  # the caller is gone
        if op == "close":
            recognizer.close()
            conn.send(("ok", None))
            return
        try:
            value = getattr(recognizer, op)(*arg)
        except Exception as exc:  # noqa: BLE001
            conn.send(("error", type(exc).__name__, str(exc)))
        else:
            conn.send(("ok", value))


# Errors the interface documents; anything else from the child arrives as a RecognizerError.
_PASSED_THROUGH = {"TypeError": TypeError, "ValueError": ValueError, "RecognizerError": RecognizerError}


class IsolatedRecognizer:
    """``factory(**settings)`` (a picklable class or function) running in its own process."""

    sample_rate = SAMPLE_RATE
    decodes = None  # the child's counts are not brought back

    def __init__(self, factory, name: str, **settings):
        self.name = name
        self._factory, self._settings = factory, settings  # for ``another_stream``
        self._declared: dict = {}  # the wrapped recognizer's ``DECLARATIONS``, once it is ready
        # spawn, not fork: a fork of a process with Qt and ONNX Runtime threads may deadlock.
        context = multiprocessing.get_context("spawn")
        self._conn, child_end = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child_end, factory, settings), name=f"livecap-{name}", daemon=True
        )
        self._process.start()
        child_end.close()  # so that a dead child shows as EOF here
        self._lock = threading.Lock()  # one call at a time on the pipe
        self._ready = False
        self._closed = False

    # -- what the wrapped recognizer declares ------------------------------------------
    @property
    def writes_marks(self) -> bool:
        return self._declaration("writes_marks")

    @property
    def commits_words(self) -> bool:
        return self._declaration("commits_words")

    @property
    def revises_writing(self) -> bool:
        return self._declaration("revises_writing")

    @property
    def language(self) -> str | None:
        return self._declaration("language")

    @property
    def multilingual(self) -> bool:
        return self._declaration("multilingual")

    @property
    def detects_language(self) -> bool:
        return self._declaration("detects_language")

    @property
    def translating(self) -> bool:
        return self._declaration("translating")

    @property
    def model_path(self):
        return self._declaration("model_path")

    def _declaration(self, name: str):
        if not self._declared:
            self.wait_ready()
        return self._declared[name]

    # -- the interface -----------------------------------------------------------------
    def accept(self, pcm) -> RecognizerUpdate:
        return self._call("accept", as_pcm_bytes(pcm))

    def flush(self) -> RecognizerUpdate:
        return self._call("flush")

    def reset(self) -> None:
        self._call("reset")

    def wait_ready(self) -> None:
        """Block until the child has loaded its model; raises ``RecognizerError`` if it could not."""
        with self._lock:
            self._ensure_ready()

    def another_stream(self) -> IsolatedRecognizer:
        """The same recognizer in a process of its own."""
        if self.closed:
            raise RecognizerError(f"the {self.name} recognizer was closed; start a new session")
        return IsolatedRecognizer(self._factory, self.name, **self._settings)

    def close(self, timeout: float = 5.0) -> None:
        """Stop the child. Idempotent; later calls raise ``RecognizerError``."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._conn.send(("close", ()))
            except (OSError, ValueError):
                pass  # already gone
            self._process.join(timeout)
            if self._process.is_alive():
                self._process.terminate()
                self._process.join(timeout)
            self._conn.close()

    @property
    def closed(self) -> bool:
        """Closed, or its process died: calls would raise."""
        return self._closed or (self._ready and not self._process.is_alive())

    @property
    def pid(self) -> int | None:
        return self._process.pid

    # -- the pipe -----------------------------------------------------------------------
    def _call(self, op: str, *arg):
        with self._lock:
            self._ensure_ready()
            try:
                self._conn.send((op, arg))
            except (OSError, ValueError) as exc:
                raise self._died() from exc
            reply = self._receive(CALL_TIMEOUT, f"answer {op}")
        if reply[0] == "error":
            raise _PASSED_THROUGH.get(reply[1], RecognizerError)(reply[2])
        return reply[1]

    def _ensure_ready(self) -> None:
        if self._closed:
            raise RecognizerError(f"The {self.name} recognizer was closed; start a new session")
        if self._ready:
            return
        reply = self._receive(START_TIMEOUT, "start")
        if reply[0] == "error":
            self._closed = True
            self._process.join(5.0)
            message = reply[2]
            raise RecognizerError(
                message
                if reply[1] == "RecognizerError"
                else f"{self.name} could not start: {reply[1]}: {message}"
            )
        self._declared = reply[1]
        self._ready = True

    def _receive(self, timeout: float, what: str):
        # poll() in slices, so that a child that died is noticed at once rather than after the timeout
        waited = 0.0
        while not self._conn.poll(0.25):
            waited += 0.25
            if not self._process.is_alive() and not self._conn.poll(0):
                raise self._died()
            if waited >= timeout:
                raise RecognizerError(
                    f"The {self.name} recognizer did not {what} within {timeout:.0f} s; "
                    f"the machine may be overloaded. Stop and start the session again"
                )
        try:
            return self._conn.recv()
        except (EOFError, OSError) as exc:
            raise self._died() from exc

    def _died(self) -> RecognizerError:
        self._process.join(1.0)
        self._closed = True
        return RecognizerError(
            f"The {self.name} recognizer process stopped unexpectedly "
            f"(exit code {self._process.exitcode}); start the session again"
        )
