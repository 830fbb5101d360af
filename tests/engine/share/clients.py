"""Real clients of the caption server for its tests: an event-stream reader on aiohttp, raw
requests on a socket (for what a well-behaved client never sends), and the words a session would
publish."""

from __future__ import annotations

import asyncio
import json
import socket

import aiohttp

from engine.events import Appended, Settled
from engine.words import Word


def said(feed, first: int, texts: list[str], settle: bool = True) -> int:
    """Feed words at ``first``...: appended, and settled unless ``settle`` is False."""
    events = []
    for i, text in enumerate(texts):
        events.append(Appended(first + i, Word(text)))
        if settle:
            events.append(Settled(first + i, "none", "lower", 1, text))
    feed(events)
    return first + len(texts)


class Captions:
    """What a viewer has been sent: each message as it came, and the words they make."""

    def __init__(self) -> None:
        self.messages: list[tuple[str | None, str, dict]] = []  # (id, event, data)
        self.words: dict[int, dict] = {}

    def take(self, event_id, event, data) -> None:
        self.messages.append((event_id, event, data))
        if data.get("type") == "snapshot":
            self.words = {data["from"] + i: w for i, w in enumerate(data["words"])}
        elif data.get("type") == "word":
            self.words[data["position"]] = data
        elif data.get("type") == "retracted":
            self.words = {p: w for p, w in self.words.items() if p < data["from"]}

    @property
    def ids(self) -> list[str]:
        return [i for i, _, _ in self.messages if i is not None]

    def settled(self, count: int) -> bool:
        return all(self.words.get(p, {}).get("state") == "settled" for p in range(count))


async def read_stream(
    response: aiohttp.ClientResponse, captions: Captions, until=lambda c: False
) -> Captions:
    """Read server-sent events into ``captions`` until ``until(captions)`` or the stream ends."""
    event_id, event, data = None, "message", []
    async for raw in response.content:
        line = raw.decode().rstrip("\r\n")
        if line.startswith(":"):
            continue
        if not line:
            if data:
                captions.take(event_id, event, json.loads("\n".join(data)))
                if until(captions):
                    break
            event_id, event, data = None, "message", []
            continue
        name, _, value = line.partition(": ")
        if name == "id":
            event_id = value
        elif name == "event":
            event = value
        elif name == "data":
            data.append(value)
    return captions


def host(port: int) -> dict:
    return {"Host": f"127.0.0.1:{port}"}


def raw_request(port: int, request: bytes, timeout: float = 10.0) -> bytes:
    """Send ``request`` as it stands and read the answer until the server closes or answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.") else 0


def run(coroutine, timeout: float = 60.0):
    """Run a test's client side; a server that never answers fails the test instead of hanging it."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))
