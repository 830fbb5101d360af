"""The per-user control socket: ``livecap dictate --toggle`` / ``--stop`` reach a running livecap.

A Unix socket in a folder only its owner may enter (0700), the socket itself 0600. One request
per connection: a command word and a newline in, one line out. Users bind ``livecap dictate
--toggle`` to a key in their desktop's keyboard settings (README).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path

from engine.files import paths
from engine.files.private_folder import prepare_private_folder

log = logging.getLogger(__name__)

SOCKET_NAME = "control.sock"
MAX_REQUEST = 64


class ControlUnavailable(RuntimeError):
    """No livecap is listening (or this platform has no Unix sockets); the message says what to do."""


def control_socket_path() -> Path:
    """``$XDG_RUNTIME_DIR/livecap/control.sock``, else in livecap's per-user temporary folder."""
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime):
        return Path(runtime) / "livecap" / SOCKET_NAME
    return paths.temp_user_dir() / SOCKET_NAME


def _private_folder(folder: Path) -> None:
    try:
        prepare_private_folder(folder, owned_from=folder)
    except PermissionError as exc:
        raise ControlUnavailable(f"{exc}; set XDG_RUNTIME_DIR to a folder of your own") from None


def send_command(command: str, path: Path | None = None, timeout: float = 5.0) -> str:
    """Send one command to the running livecap and return its one-line answer."""
    if not hasattr(socket, "AF_UNIX"):
        raise ControlUnavailable("controlling a running livecap needs Unix sockets, which this system lacks")
    path = path or control_socket_path()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout)
        try:
            client.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            raise ControlUnavailable(
                "no running livecap is listening: start the app, or livecap dictate, first"
            ) from None
        client.sendall(command.encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = client.recv(1024)
            if not chunk:
                break
            reply += chunk
    return reply.decode(errors="replace").strip()


class ControlServer:
    """Answers commands on the control socket, on a thread of its own. ``handlers`` map a
    command word to a function returning the answer; they run on the server's thread."""

    def __init__(self, handlers: dict[str, Callable[[], str]], path: Path | None = None):
        self.handlers = handlers
        self.path = path or control_socket_path()
        self._socket: socket.socket | None = None
        self._thread = threading.Thread(target=self._serve, name="livecap-control", daemon=True)
        self._stopped = threading.Event()

    def start(self) -> ControlServer:
        if not hasattr(socket, "AF_UNIX"):
            raise ControlUnavailable("this system has no Unix sockets: --toggle and --stop are unavailable")
        _private_folder(self.path.parent)
        if self.path.exists():
            try:
                send_command("status", self.path, timeout=1.0)
            except (ControlUnavailable, OSError):
                self.path.unlink(missing_ok=True)  # left by a livecap that crashed
            else:
                raise ControlUnavailable(
                    f"another livecap is already listening on {self.path}; "
                    "livecap dictate --toggle or --stop controls that one"
                )
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # the socket is born 0600: no moment when others could connect
        try:
            server.bind(str(self.path))
        finally:
            os.umask(old_umask)
        server.listen(4)
        server.settimeout(0.2)
        self._socket = server
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.ident is not None:
            self._thread.join(5)
        if self._socket is not None:
            self._socket.close()
            self._socket = None
            self.path.unlink(missing_ok=True)

    def _serve(self) -> None:
        assert self._socket is not None
        while not self._stopped.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.settimeout(2.0)
                try:
                    request = connection.recv(MAX_REQUEST).decode(errors="replace").strip()
                    handler = self.handlers.get(request)
                    if handler is None:
                        answer = f"unknown command {request!r}; known: {', '.join(sorted(self.handlers))}"
                    else:
                        answer = handler()
                    connection.sendall(answer.encode() + b"\n")
                except Exception:  # a client that hung up; a handler that failed
                    log.exception("control request failed")
