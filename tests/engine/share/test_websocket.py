"""The caption server's WebSocket on ``/events`` against real clients: the words over it, resuming
by id, and what it refuses (malformed frames, oversized and too many client messages) while
another viewer goes on getting every word."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct

import aiohttp

from engine.share.streams import CLIENT_MESSAGES_PER_S, MAX_CLIENT_MESSAGE
from tests.engine.share.clients import Captions, raw_request, read_stream, run, said, status_of

KEY = "dGhlIHNhbXBsZSBub25jZQ=="  # any 16 bytes in base 64: the handshake only echoes its hash


async def read_websocket(websocket, captions: Captions, until=lambda c: False) -> Captions:
    """Read WebSocket messages into ``captions`` until ``until(captions)`` or the socket closes
    (then ``captions.closed``: the server's close code and reason)."""
    while True:
        received = await websocket.receive()
        if received.type is aiohttp.WSMsgType.CLOSE:
            captions.closed = (received.data, received.extra)
        if received.type is not aiohttp.WSMsgType.TEXT:
            break
        data = json.loads(received.data)
        captions.take(data.pop("id", None), data.get("type"), data)
        if until(captions):
            break
    return captions


def masked(opcode_byte: int, payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([opcode_byte, 0x80 | len(payload)]) + mask + body


def raw_websocket(port: int) -> socket.socket:
    """A WebSocket opened by hand on a plain socket, past its handshake."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(
        f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += conn.recv(4096)
    assert status_of(answer) == 101, answer
    return conn


def close_code(conn: socket.socket) -> int | None:
    """Read the server's frames until it closes; the code of its close frame (None: no close frame)."""
    data = b""
    try:
        while chunk := conn.recv(65536):
            data += chunk
    except OSError:  # reset: closed without a goodbye
        pass
    while len(data) >= 2:
        opcode, length = data[0] & 0x0F, data[1] & 0x7F
        start = 2
        if length == 126:
            length, start = struct.unpack("!H", data[2:4])[0], 4
        elif length == 127:
            length, start = struct.unpack("!Q", data[2:10])[0], 10
        if opcode == 0x8:
            return struct.unpack("!H", data[start : start + 2])[0]
        data = data[start + length :]
    return None


BAD_FRAMES = {
    "a reserved opcode": masked(0x83, b"x"),
    "reserved bits set": masked(0xB1, b"x"),
    "a fragmented ping": masked(0x09, b"x"),
    "a length past the limit": bytes([0x81, 0xFF]) + struct.pack("!Q", 1 << 40) + os.urandom(4),
    "an unmasked frame past the limit": bytes([0x81, 0x7F]) + struct.pack("!Q", 10 * MAX_CLIENT_MESSAGE),
}


def test_a_websocket_viewer_gets_the_words_and_resumes_by_id_without_repeats(serve):
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            said(feed, 0, ["earlier"])
            async with client.ws_connect(server.url + "events") as websocket:
                first = await read_websocket(websocket, Captions(), lambda c: True)
                assert first.messages[0][2]["type"] == "snapshot"
                said(feed, 1, ["Hello", "there"])
                await read_websocket(websocket, first, lambda c: c.settled(3))
            async with client.ws_connect(f"{server.url}events?last={first.ids[-1]}") as websocket:
                said(feed, 3, ["again"])
                again = await read_websocket(websocket, Captions(), lambda c: 3 in c.words)
            return first, again

    first, again = run(main(), 20)
    assert [first.words[p]["text"] for p in range(3)] == ["earlier", "Hello", "there"]
    assert all(i.startswith(server.epoch + "-") for i in first.ids)
    assert [(m[2]["type"], m[2]["position"]) for m in again.messages] == [("word", 3)]
    assert not set(first.ids) & set(again.ids)


def test_a_websocket_from_a_foreign_origin_or_host_is_refused(serve):
    _, server = serve()
    port = server.port
    upgrade = (
        "GET /events HTTP/1.1\r\nHost: {host}\r\n{extra}Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )

    def status(host, extra=""):
        answer = raw_request(port, upgrade.format(host=host, extra=extra).encode())
        return status_of(answer)

    assert status(f"attacker.example:{port}") == 403
    assert status(f"127.0.0.1:{port}", "Origin: http://attacker.example\r\n") == 403
    assert status(f"127.0.0.1:{port}", f"Origin: http://127.0.0.1:{port}\r\n") == 101


def test_malformed_frames_are_closed_while_another_viewer_gets_every_word(serve):
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            async with client.ws_connect(server.url + "events") as websocket:
                captions = Captions()
                count = len(BAD_FRAMES) + 1
                reading = asyncio.create_task(read_websocket(websocket, captions, lambda c: c.settled(count)))
                codes = {}
                for position, (name, frame) in enumerate(BAD_FRAMES.items()):
                    conn = await asyncio.to_thread(raw_websocket, server.port)
                    conn.sendall(frame)
                    said(feed, position, [f"word{position}"])
                    codes[name] = await asyncio.to_thread(close_code, conn)
                    conn.close()
                said(feed, count - 1, ["last"])
                await asyncio.wait_for(reading, 10)
                viewers = server.viewers
            return codes, captions, viewers

    codes, captions, viewers = run(main(), 20)
    assert codes == {
        "a reserved opcode": 1002,
        "reserved bits set": 1002,
        "a fragmented ping": 1002,
        "a length past the limit": 1009,
        "an unmasked frame past the limit": 1009,
    }
    assert viewers == 1  # the well-behaved viewer, still served
    assert [captions.words[p]["text"] for p in range(len(BAD_FRAMES))] == [
        f"word{p}" for p in range(len(BAD_FRAMES))
    ]
    assert server.dropped["it sent a malformed frame"] == 3
    assert server.dropped[f"it sent a message over {MAX_CLIENT_MESSAGE} bytes"] == 2


def test_a_flood_of_client_messages_is_cut_off_with_the_limits_reason_and_the_captions_go_on(serve):
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            reader = await client.get(server.url + "events")
            captions = Captions()
            reading = asyncio.create_task(read_stream(reader, captions, lambda c: c.settled(2)))
            async with client.ws_connect(server.url + "events") as flooder:
                await flooder.receive()  # the snapshot
                for _ in range(CLIENT_MESSAGES_PER_S):  # within the limit: still a viewer
                    await flooder.ping()
                said(feed, 0, ["still"])
                received = [json.loads((await flooder.receive()).data)]
                for _ in range(5 * CLIENT_MESSAGES_PER_S):
                    await flooder.send_str('{"type": "ping"}')
                closed = await read_websocket(flooder, Captions())
                received += [data for _, _, data in closed.messages]
            said(feed, 1, ["here"])
            await asyncio.wait_for(reading, 10)
            return closed.closed, received, captions

    (code, why), received, captions = run(main(), 20)
    reason = f"it sent more than {CLIENT_MESSAGES_PER_S} messages a second"
    assert received[0]["type"] == "word" and received[0]["text"] == "still"
    assert (code, why) == (1008, reason)
    assert received[-1] == {"type": "end", "reason": reason}
    assert server.dropped == {reason: 1}
    assert [captions.words[p]["text"] for p in range(2)] == ["still", "here"]


def test_stopping_sharing_ends_a_websocket_viewer_with_the_reason(serve):
    _, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            async with client.ws_connect(server.url + "events") as websocket:
                captions = await read_websocket(websocket, Captions(), lambda c: True)
                await asyncio.to_thread(server.stop)
                return await read_websocket(websocket, captions)

    captions = run(main(), 20)
    assert captions.messages[-1][2] == {"type": "end", "reason": "sharing stopped"}
    assert captions.closed == (1001, "sharing stopped")
