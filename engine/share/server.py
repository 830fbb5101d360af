"""The caption page's server: aiohttp on its own thread and asyncio loop, fed by a ``ShareFeed``.

``/`` is the page (``engine/share/static``, nothing from elsewhere), ``/events`` the captions as
server-sent events or, where the request asks to upgrade, WebSocket text messages (the messages of
``engine.share.feed``, sent as ``engine.share.streams`` says), each with an id ``EPOCH-N``. A
viewer who comes late gets a snapshot of the recent captions, then the stream; one who reconnects
with ``Last-Event-ID`` (or ``?last=ID``) gets what it missed from the recent messages (or a
snapshot where they no longer reach back, or the server restarted: another epoch), and never a
message twice.

The captions never wait on a viewer: each has its own small queue, and a viewer whose queue
overflows (it stopped reading) is dropped, its connection cut. ``dropped`` counts the reasons;
nothing about a viewer (address, agent) nor any caption text is logged or written anywhere (no
access log).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import socket
import threading
import time
from collections import Counter, deque
from pathlib import Path

from aiohttp import web

from engine.share.feed import ShareFeed
from engine.share.guard import Guard, add_security_headers
from engine.share.streams import Message, Viewer, message, stream_events, stream_websocket, wants_websocket

__all__ = ["DEFAULT_PORT", "MAX_VIEWERS", "OBS_OPTIONS", "ShareServer", "lan_address"]

# aiohttp's server logs a bad request with the client's address: nothing about a viewer is logged.
_SILENT = logging.Logger("caption-share-silent", logging.CRITICAL + 1)
_SILENT.propagate = False

DEFAULT_PORT = 8765
OBS_OPTIONS = "?bg=transparent&lines=2&size=48"  # the address's options for OBS's browser source
MAX_VIEWERS = 50
VIEWER_QUEUE = 256  # messages a viewer may be behind before it is dropped
RECENT_MESSAGES = 2000  # what a reconnecting viewer may catch up from without a snapshot
HEARTBEAT_S = 15.0  # a quiet stream's keep-alive: a comment line, or a WebSocket ping
MAX_LINE = 2048  # request line and header line
MAX_FIELD = 4096  # one header's value
MAX_BODY = 1024
IDLE_S = 15.0  # a connection that is not a viewer's stream is closed after this long
STATIC_DIR = Path(__file__).with_name("static")  # package data: the page, its script and style
STATIC = {"page.js": "text/javascript", "page.css": "text/css"}


def _static(name: str) -> bytes:
    return (STATIC_DIR / name).read_bytes()


def lan_address() -> str:
    """This computer's address on the local network, as others reach it (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a documentation address: only picks the route
            return probe.getsockname()[0]
        except OSError:
            return socket.gethostname()


class ShareServer:
    """Serves ``feed``'s captions until ``stop()`` (or ``time_limit`` seconds). ``lan``: on every
    interface, behind a random token; otherwise on 127.0.0.1 only."""

    def __init__(
        self,
        feed: ShareFeed,
        *,
        lan: bool = False,
        port: int = 0,
        max_viewers: int = MAX_VIEWERS,
        viewer_queue: int = VIEWER_QUEUE,
        time_limit: float | None = None,
        idle_s: float = IDLE_S,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self.feed, self.lan, self.max_viewers = feed, lan, max_viewers
        self._port, self._viewer_queue, self._time_limit = port, viewer_queue, time_limit
        self._idle_s, self._heartbeat_s = idle_s, heartbeat_s
        self.guard = Guard(secrets.token_urlsafe(24) if lan else None, MAX_BODY)
        self.epoch = secrets.token_hex(4)
        self.dropped: Counter[str] = Counter()  # why viewers were dropped: reasons only
        self.refused_full = 0  # viewers refused past max_viewers
        self._viewers: set[Viewer] = set()
        self._streams: set[asyncio.Task] = set()  # the viewers' handlers, waited for on stopping
        self._recent: deque[tuple[int, Message]] = deque(maxlen=RECENT_MESSAGES)
        self._sent = 0  # the number of the last message handed to the viewers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._page = _static("index.html")
        self._files = {name: _static(name) for name in STATIC}

    # ---- the caller's thread -------------------------------------------------------------------
    def start(self) -> ShareServer:
        self._thread = threading.Thread(target=self._run, name="caption-share", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise self._failure
        return self

    @property
    def port(self) -> int:
        return self.guard.port

    @property
    def token(self) -> str | None:
        return self.guard.token

    @property
    def running(self) -> bool:
        """Serving: not stopped, nor past its time limit."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def viewers(self) -> int:
        return len(self._viewers)

    @property
    def url(self) -> str:
        """The page's address: with the token on the local network."""
        if self.guard.token is None:
            return f"http://127.0.0.1:{self.port}/"
        return f"http://{lan_address()}:{self.port}/{self.guard.token}/"

    def renew_token(self) -> str:
        """A new token for the local network's link; every viewer of the old one is dropped."""
        if self.guard.token is None:
            raise ValueError("a token guards the local network's link only")
        token = secrets.token_urlsafe(24)
        done = threading.Event()

        def renew():
            self.guard.token = token
            self._drop_all("the link was renewed")
            done.set()

        self._call(renew)
        done.wait(5)
        return token

    def stop(self, timeout: float = 5.0) -> None:
        """Drop every viewer, close the server, join its thread. Idempotent."""
        if self._thread is None:
            return
        self._call(lambda: self._stopping.set())
        self._thread.join(timeout)
        self._thread = None
        self.feed.wake = None

    def _call(self, callback) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(callback)
            except RuntimeError:  # closed in between: it stopped already
                pass

    # ---- the server's thread --------------------------------------------------------------------
    def _run(self) -> None:
        loop = self._loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:  # a port in use: said to start()'s caller
            self._failure = exc
        finally:
            self._ready.set()
            loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        self._waiting = asyncio.Event()
        app = web.Application(middlewares=[self.guard.middleware], client_max_size=MAX_BODY)
        app.on_response_prepare.append(add_security_headers)
        prefix = "/{token}" if self.lan else ""
        app.router.add_get(prefix + "/", self._serve_page)
        app.router.add_get(prefix + "/events", self._serve_events)
        app.router.add_get(prefix + "/{name:page\\.(?:js|css)}", self._serve_file)
        runner = web.AppRunner(
            app,
            access_log=None,
            logger=_SILENT,
            handle_signals=False,
            max_line_size=MAX_LINE,
            max_field_size=MAX_FIELD,
            keepalive_timeout=self._idle_s,
            handler_cancellation=True,  # a viewer gone away leaves at once, not at its next write
            shutdown_timeout=1.0,
        )
        await runner.setup()
        try:
            site = web.TCPSite(runner, "0.0.0.0" if self.lan else "127.0.0.1", self._port, backlog=256)
            await site.start()
            self.guard.port = runner.addresses[0][1]
            loop = asyncio.get_running_loop()
            self.feed.wake = lambda: loop.call_soon_threadsafe(self._waiting.set)
            self._ready.set()
            tasks = [asyncio.create_task(self._pump()), asyncio.create_task(self._close_idle(runner))]
            try:
                await asyncio.wait_for(self._stopping.wait(), self._time_limit)
            except TimeoutError:
                pass
            for task in tasks:
                task.cancel()
            self._drop_all("sharing stopped", counted=False)
            if self._streams:  # each stream sends its last message (a WebSocket its close frame)
                await asyncio.wait(self._streams, timeout=1.0)
        finally:
            self.feed.wake = None
            await runner.cleanup()

    async def _pump(self) -> None:
        while True:
            await self._waiting.wait()
            self._waiting.clear()
            messages, snapshot = self.feed.take()
            if snapshot is not None:  # the feed overflowed: everyone starts again from it
                seq, message = snapshot
                self._recent.clear()
                self._broadcast(seq, message)
            for seq, message in messages:
                self._broadcast(seq, message)

    def _broadcast(self, seq: int, data: dict) -> None:
        data = message(f"{self.epoch}-{seq}", data)
        self._recent.append((seq, data))
        self._sent = seq
        for viewer in list(self._viewers):
            if seq <= viewer.after:
                continue
            try:
                viewer.queue.put_nowait(data)
            except asyncio.QueueFull:
                self._drop(viewer, "it stopped reading", cut=True)

    def _drop(self, viewer: Viewer, reason: str, cut: bool = False, counted: bool = True) -> None:
        if viewer not in self._viewers:
            return
        self._viewers.discard(viewer)
        viewer.reason = reason
        if counted:
            self.dropped[reason] += 1
        while not viewer.queue.empty():
            viewer.queue.get_nowait()
        viewer.queue.put_nowait(None)
        if cut and viewer.transport is not None:
            viewer.transport.abort()

    def _drop_all(self, reason: str, counted: bool = True) -> None:
        for viewer in list(self._viewers):
            self._drop(viewer, reason, counted=counted)

    async def _close_idle(self, runner: web.AppRunner) -> None:
        """Connections that are not a viewer's stream get ``idle_s`` to finish their request (a
        client sending its headers a byte at a time holds nothing for longer)."""
        first_seen: dict = {}
        while True:
            await asyncio.sleep(self._idle_s / 2)
            now = time.monotonic()
            streams = {v.transport for v in self._viewers}
            handlers = list(runner.server.connections) if runner.server is not None else []
            first_seen = {h: first_seen.get(h, now) for h in handlers}
            for handler, seen in first_seen.items():
                transport = handler.transport
                if transport is not None and transport not in streams and now - seen >= self._idle_s:
                    transport.close()

    # ---- handlers -----------------------------------------------------------------------------
    async def _serve_page(self, request: web.Request) -> web.Response:
        return web.Response(body=self._page, content_type="text/html", charset="utf-8")

    async def _serve_file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        return web.Response(body=self._files[name], content_type=STATIC[name], charset="utf-8")

    async def _serve_events(self, request: web.Request) -> web.StreamResponse:
        if len(self._viewers) >= self.max_viewers:
            self.refused_full += 1
            return web.Response(
                status=503, text="too many viewers; try again later\n", headers={"Retry-After": "30"}
            )
        last = request.query.get("last") or request.headers.get("Last-Event-ID", "")
        first, after = self._catch_up(last)
        viewer = Viewer(asyncio.Queue(self._viewer_queue), request.transport, after)
        self._viewers.add(viewer)  # no await since the catch-up: nothing is missed nor repeated
        stream = asyncio.current_task()
        self._streams.add(stream)
        try:
            if wants_websocket(request):
                return await stream_websocket(request, viewer, first, self._heartbeat_s, self._drop)
            return await stream_events(request, viewer, first, self._heartbeat_s)
        finally:
            self._viewers.discard(viewer)
            self._streams.discard(stream)

    def _catch_up(self, last_id: str) -> tuple[list[Message], int]:
        """What a viewer gets first, and the number of the last message that covers."""
        epoch, _, number = last_id.partition("-")
        if epoch == self.epoch and number.isdigit() and self._recent:
            last = int(number)
            oldest = self._recent[0][0]
            if oldest - 1 <= last <= self._sent:
                return [data for seq, data in self._recent if seq > last], self._sent
        seq, snapshot = self.feed.snapshot()
        return [message(f"{self.epoch}-{seq}", snapshot)], seq
