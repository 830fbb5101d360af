"""How one viewer is sent the captions: as server-sent events (a plain ``GET /events``) or as
WebSocket text messages (the same request asking to upgrade). Both carry the same messages
(``engine.share.feed``) with the same ids ``EPOCH-N``: an event's ``id:`` line, or the JSON's
``"id"`` field over a WebSocket, where a reconnecting client gives it back as ``?last=ID``.

The page is read-only, so a WebSocket client has nothing to say: what it sends is read only to
answer its pings and to hold it to small messages and few of them. Past either limit, or on a
malformed frame, its connection is closed with a WebSocket close code (and the limit as the
reason), and it is no longer a viewer; the captions and the other viewers go on.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import NamedTuple

from aiohttp import WSCloseCode, WSMsgType, web

__all__ = [
    "CLIENT_MESSAGES_PER_S",
    "MAX_CLIENT_MESSAGE",
    "Message",
    "Viewer",
    "message",
    "stream_events",
    "stream_websocket",
    "wants_websocket",
]

MAX_CLIENT_MESSAGE = 512  # bytes: a client's message is at most a ping
CLIENT_MESSAGES_PER_S = 10  # what one WebSocket client may send a second, pings included
CLOSE_TIMEOUT_S = 2.0  # how long a closing WebSocket waits for the client's own close frame
_GONE = (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED)


class Message(NamedTuple):
    """One message, encoded once for every viewer: as an event-stream event and as a WebSocket
    text message."""

    sse: bytes
    ws: str


def message(seq_id: str, data: dict) -> Message:
    return Message(
        f"id: {seq_id}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode(),
        json.dumps({"id": seq_id, **data}, ensure_ascii=False),
    )


@dataclass(eq=False)
class Viewer:
    queue: asyncio.Queue  # Messages, then None once it is dropped
    transport: asyncio.BaseTransport | None
    after: int  # messages up to this number are already in what it was sent first
    reason: str = ""  # why it was dropped
    code: int = WSCloseCode.GOING_AWAY  # the close code a WebSocket viewer is dropped with
    joined: float = field(default_factory=time.monotonic)


def wants_websocket(request: web.Request) -> bool:
    return request.headers.get("Upgrade", "").lower() == "websocket"


async def stream_events(
    request: web.Request, viewer: Viewer, first: list[Message], heartbeat_s: float
) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"})
    try:
        await response.prepare(request)
        await response.write(b"retry: 2000\n\n" + b"".join(m.sse for m in first))
        while True:
            try:
                data = await asyncio.wait_for(viewer.queue.get(), heartbeat_s)
            except TimeoutError:
                await response.write(b": still here\n\n")  # proxies and browsers keep it open
                continue
            if data is None:
                end = {"type": "end", "reason": viewer.reason}
                await response.write(f"event: end\ndata: {json.dumps(end)}\n\n".encode())
                break
            await response.write(data.sse)
    except (ConnectionError, RuntimeError):
        pass  # the viewer went away, or was cut
    return response


async def stream_websocket(
    request: web.Request, viewer: Viewer, first: list[Message], heartbeat_s: float, drop
) -> web.WebSocketResponse:
    """``drop(viewer, reason, counted=...)``: the server's, when the client leaves or breaks a limit."""
    websocket = web.WebSocketResponse(
        heartbeat=heartbeat_s,
        autoping=False,  # pings are counted with the client's other messages
        compress=False,  # the messages are small; deflating them for each viewer costs CPU
        max_msg_size=MAX_CLIENT_MESSAGE,
        timeout=CLOSE_TIMEOUT_S,
    )
    await websocket.prepare(request)
    listening = asyncio.create_task(_listen(websocket, viewer, drop))
    try:
        for data in first:
            await websocket.send_str(data.ws)
        while (data := await viewer.queue.get()) is not None:
            await websocket.send_str(data.ws)
        if not websocket.closed:
            await websocket.send_str(json.dumps({"type": "end", "reason": viewer.reason}))
            await websocket.close(code=viewer.code, message=viewer.reason.encode()[:123])
    except (ConnectionError, RuntimeError):
        pass  # the viewer went away, or was cut
    finally:
        listening.cancel()
    return websocket


async def _listen(websocket: web.WebSocketResponse, viewer: Viewer, drop) -> None:
    """Read what the client sends until it leaves, breaks the protocol or sends too much."""
    second, count = time.monotonic(), 0
    while True:
        received = await websocket.receive()
        if received.type in _GONE:
            drop(viewer, "it closed the connection", counted=False)
            return
        if received.type is WSMsgType.ERROR:
            too_big = getattr(received.data, "code", None) == WSCloseCode.MESSAGE_TOO_BIG
            drop(
                viewer,
                f"it sent a message over {MAX_CLIENT_MESSAGE} bytes"
                if too_big
                else "it sent a malformed frame",
            )
            return
        now = time.monotonic()
        if now - second >= 1.0:
            second, count = now, 0
        count += 1
        if count > CLIENT_MESSAGES_PER_S:
            viewer.code = WSCloseCode.POLICY_VIOLATION
            drop(viewer, f"it sent more than {CLIENT_MESSAGES_PER_S} messages a second")
            return
        if received.type is WSMsgType.PING:
            await websocket.pong(received.data)
