"""The caption server against real clients: what it serves, what it refuses, and that the
captions reach every real viewer whatever the others do."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import time

import aiohttp
import pytest

from engine.share.guard import SECURITY_HEADERS
from tests.engine.share.clients import Captions, raw_request, read_stream, run, said, status_of


def test_the_page_its_script_and_style_are_served_with_strict_headers(serve):
    _, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            pages = {}
            for path in ("", "page.js", "page.css"):
                async with client.get(server.url + path) as response:
                    pages[path] = (response.status, response.headers, await response.text())
            return pages

    pages = run(main())
    for status, headers, _ in pages.values():
        assert status == 200
        for name, value in SECURITY_HEADERS.items():
            assert headers[name] == value
    assert "script-src 'self'" in SECURITY_HEADERS["Content-Security-Policy"]
    html = pages[""][2]
    assert pages[""][1]["Content-Type"].startswith("text/html")
    assert pages["page.js"][1]["Content-Type"].startswith("text/javascript")
    assert re.search(r'<script src="page.js"', html)
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "no inline script"
    assert 'aria-live="polite"' in html
    assert "http" not in html.replace("http-equiv", ""), "nothing from elsewhere"
    assert 'dir = "auto"' in pages["page.js"][2]


def test_on_the_network_a_missing_wrong_or_renewed_token_is_refused_and_renewing_drops_viewers(serve):
    feed, server = serve(lan=True)
    base = f"http://127.0.0.1:{server.port}"
    old = server.token
    assert len(old) >= 22  # at least 128 random bits

    async def main():
        async with aiohttp.ClientSession() as client:
            statuses = {}
            for name, path in [
                ("missing", "/"),
                ("missing events", "/events"),
                ("wrong", "/x" * 16 + "/"),
                ("right", f"/{old}/"),
                ("short", f"/{old[:-1]}/"),
            ]:
                async with client.get(base + path) as response:
                    statuses[name] = response.status
            stream = await client.get(f"{base}/{old}/events")
            captions = Captions()
            reading = asyncio.create_task(read_stream(stream, captions))
            while server.viewers < 1:
                await asyncio.sleep(0.01)
            new = await asyncio.to_thread(server.renew_token)
            await asyncio.wait_for(reading, 10)  # the stream ended: the viewer was dropped
            for name, path in [("old", f"/{old}/"), ("old events", f"/{old}/events"), ("new", f"/{new}/")]:
                async with client.get(base + path) as response:
                    statuses[name] = response.status
            return statuses, captions, new

    statuses, captions, new = run(main())
    assert statuses == {
        "missing": 403,
        "missing events": 403,
        "wrong": 403,
        "right": 200,
        "short": 403,
        "old": 403,
        "old events": 403,
        "new": 200,
    }
    assert new != old and server.token == new
    assert captions.messages[-1][2] == {"type": "end", "reason": "the link was renewed"}
    assert server.dropped["the link was renewed"] == 1
    assert f"/{new}/" in server.url


def test_a_foreign_host_or_origin_is_refused_on_this_computer(serve):
    _, server = serve()
    port = server.port
    get = "GET {path} HTTP/1.1\r\nHost: {host}\r\n{extra}Connection: close\r\n\r\n"

    def status(path, host_name, extra=""):
        return status_of(raw_request(port, get.format(path=path, host=host_name, extra=extra).encode()))

    assert status("/", f"127.0.0.1:{port}") == 200
    assert status("/", f"localhost:{port}") == 200
    assert status("/", f"attacker.example:{port}") == 403  # a rebound name
    assert status("/", "127.0.0.1:1") == 403
    assert status("/events", f"attacker.example:{port}") == 403
    assert status("/events", f"127.0.0.1:{port}", "Origin: http://attacker.example\r\n") == 403
    assert status("/events", f"127.0.0.1:{port}", "Origin: null\r\n") == 403
    assert status("/events", f"127.0.0.1:{port}", f"Origin: http://127.0.0.1:{port}\r\n") == 200


def test_oversized_headers_lines_and_bodies_are_refused_and_viewers_go_on(serve):
    feed, server = serve()
    port = server.port

    async def main():
        async with aiohttp.ClientSession() as client:
            stream = await client.get(server.url + "events")
            captions = Captions()
            reading = asyncio.create_task(read_stream(stream, captions, lambda c: c.settled(4)))
            said(feed, 0, ["before", "the", "bad"])
            answers = await asyncio.gather(
                asyncio.to_thread(
                    raw_request,
                    port,
                    f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Big: {'a' * 5000}\r\n\r\n".encode(),
                ),
                asyncio.to_thread(
                    raw_request,
                    port,
                    f"GET /{'a' * 3000} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode(),
                ),
                asyncio.to_thread(
                    raw_request,
                    port,
                    b"".join(f"X-{i}: a\r\n".encode() for i in range(1000)).join(
                        [f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode(), b"\r\n"]
                    ),
                ),
                asyncio.to_thread(
                    raw_request,
                    port,
                    f"POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 10000000\r\n\r\n".encode()
                    + b"x" * 65536,
                ),
                asyncio.to_thread(
                    raw_request,
                    port,
                    f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 5000\r\n\r\n".encode(),
                ),
                asyncio.to_thread(
                    raw_request,
                    port,
                    f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                    "Transfer-Encoding: chunked\r\n\r\n".encode(),
                ),
            )
            said(feed, 3, ["words"])
            await asyncio.wait_for(reading, 10)
            return [status_of(a) for a in answers], captions

    statuses, captions = run(main())
    assert statuses[0] in (400, 431) and statuses[1] in (400, 414) and statuses[2] in (400, 431), statuses
    assert statuses[3:] == [413, 413, 413], statuses
    assert [captions.words[p]["text"] for p in range(4)] == ["before", "the", "bad", "words"]


def test_a_client_sending_its_headers_a_byte_at_a_time_neither_stops_a_viewer_nor_stays(serve):
    feed, server = serve(idle_s=0.5)
    loris = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    sent = 0
    request = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nX-Slow: {'a' * 100}".encode()

    async def main():
        nonlocal sent
        async with aiohttp.ClientSession() as client:
            stream = await client.get(server.url + "events")
            captions = Captions()
            reading = asyncio.create_task(read_stream(stream, captions, lambda c: c.settled(2)))
            try:
                for position in range(2):
                    loris.send(request[sent : sent + 1])
                    sent += 1
                    said(feed, position, ["word"])
                    await asyncio.sleep(0.05)
                while not reading.done():
                    loris.send(request[sent : sent + 1])
                    sent += 1
                    await asyncio.sleep(0.05)
            except OSError:  # the server closed it already
                pass
            return await reading

    captions = run(main())
    assert captions.settled(2)
    # The server closes it: it never finished its request.
    loris.settimeout(30)
    try:
        while True:
            loris.send(b"a")
            if not loris.recv(1024):
                break
    except OSError:
        pass
    loris.close()


def test_of_200_connections_at_once_50_are_viewers_the_rest_refused_and_the_50_get_every_word(serve):
    feed, server = serve()

    async def main():
        connector = aiohttp.TCPConnector(limit=0)
        async with aiohttp.ClientSession(connector=connector) as client:
            responses = await asyncio.gather(*(client.get(server.url + "events") for _ in range(200)))
            viewers = [r for r in responses if r.status == 200]
            refused = [r for r in responses if r.status != 200]
            statuses = {r.status for r in refused}
            for r in refused:
                r.release()
            streams = [Captions() for _ in viewers]
            reading = [
                asyncio.create_task(read_stream(r, c, lambda c: c.settled(20)))
                for r, c in zip(viewers, streams)
            ]
            for first in range(0, 20, 5):
                said(feed, first, ["one", "two", "three", "four", "five"])
                await asyncio.sleep(0.01)
            await asyncio.wait_for(asyncio.gather(*reading), 30)
            return len(viewers), statuses, streams

    viewers, statuses, streams = run(main())
    assert viewers == 50 and statuses == {503}
    assert server.refused_full == 150
    assert all(c.settled(20) and len(c.words) == 20 for c in streams)


def test_a_viewer_that_stops_reading_is_dropped_while_another_gets_every_word(serve):
    feed, server = serve(viewer_queue=64)
    stalled = socket.socket()
    stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    stalled.connect(("127.0.0.1", server.port))
    stalled.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
    long_word = "w" * 16000
    count = 0

    async def main():
        nonlocal count
        async with aiohttp.ClientSession() as client:
            while server.viewers < 1:
                await asyncio.sleep(0.01)
            stream = await client.get(server.url + "events")
            captions = Captions()
            reading = asyncio.create_task(read_stream(stream, captions))
            while not server.dropped and count < 20000:
                count = said(feed, count, [f"{count}{long_word}"])
                while not captions.settled(count) and not reading.done():  # this viewer keeps up
                    await asyncio.sleep(0.001)
            said(feed, count, ["last"])
            count += 1
            while not captions.settled(count):
                await asyncio.sleep(0.02)
            assert server.viewers == 1  # the reader, still served
            reading.cancel()
            return captions

    captions = run(main())
    stalled.close()
    assert server.dropped == {"it stopped reading": 1}
    assert captions.settled(count)
    assert all(captions.words[p]["text"].startswith(str(p)) for p in range(count - 1))


def test_a_viewer_reconnecting_with_its_last_event_id_gets_what_it_missed_once(serve):
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            said(feed, 0, ["earlier"])
            first = await read_stream(
                await client.get(server.url + "events"), Captions(), lambda c: c.settled(1)
            )
            assert first.messages[0][2]["type"] == "snapshot"
            stream = await client.get(server.url + "events", headers={"Last-Event-ID": first.ids[-1]})
            said(feed, 1, ["while", "away"])
            said(feed, 3, ["back"])
            # The stream is read only now: what it missed is in its queue or in the recent messages.
            again = await read_stream(stream, Captions(), lambda c: 3 in c.words)
            stream.close()
            stale = await read_stream(
                await client.get(server.url + "events", headers={"Last-Event-ID": "0000-5"}),
                Captions(),
                lambda c: True,
            )
            return first, again, stale

    first, again, stale = run(main())
    assert [m[2]["type"] for m in again.messages] == ["word", "word", "word"]
    assert [m[2]["position"] for m in again.messages] == [1, 2, 3]
    assert len(set(first.ids + again.ids)) == len(first.ids) + len(again.ids)
    assert stale.messages[0][2]["type"] == "snapshot"  # another epoch: a server restarted
    assert [w["text"] for w in stale.messages[0][2]["words"]] == ["earlier", "while", "away", "back"]


def test_a_viewer_reconnecting_after_many_messages_gets_a_snapshot(serve, monkeypatch):
    monkeypatch.setattr("engine.share.server.RECENT_MESSAGES", 4)
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            first = await read_stream(await client.get(server.url + "events"), Captions(), lambda c: True)
            for p in range(10):
                said(feed, p, [f"w{p}"])
            while server._sent < 10:
                await asyncio.sleep(0.01)
            stream = await client.get(server.url + "events", headers={"Last-Event-ID": first.ids[-1]})
            return await read_stream(stream, Captions(), lambda c: True)

    again = run(main())
    assert again.messages[0][2]["type"] == "snapshot"
    assert len(again.messages[0][2]["words"]) == 10


def test_stop_ends_every_stream_joins_the_thread_and_frees_the_port(serve):
    feed, server = serve()
    port = server.port

    async def main():
        async with aiohttp.ClientSession() as client:
            stream = await client.get(server.url + "events")
            reading = asyncio.create_task(read_stream(stream, Captions()))
            while server.viewers < 1:
                await asyncio.sleep(0.01)
            await asyncio.to_thread(server.stop)
            return await asyncio.wait_for(reading, 10)

    captions = run(main())
    assert captions.messages[-1][2] == {"type": "end", "reason": "sharing stopped"}
    assert not server.running
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()


def test_a_time_limit_stops_sharing_by_itself(serve):
    _, server = serve(time_limit=0.2)
    deadline = time.monotonic() + 20
    while server.running and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not server.running


def test_nothing_about_viewers_or_captions_is_logged(serve, caplog):
    caplog.set_level(logging.DEBUG)
    feed, server = serve()

    async def main():
        async with aiohttp.ClientSession() as client:
            async with client.get(server.url, headers={"User-Agent": "viewer-agent-7"}) as response:
                await response.read()
            stream = await client.get(server.url + "events", headers={"User-Agent": "viewer-agent-7"})
            said(feed, 0, ["confidential", "words"])
            await read_stream(stream, Captions(), lambda c: c.settled(2))

    run(main())
    server.stop()
    assert "confidential" not in caplog.text and "viewer-agent-7" not in caplog.text
    assert "127.0.0.1" not in caplog.text and "GET" not in caplog.text
