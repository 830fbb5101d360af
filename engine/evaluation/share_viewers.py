"""The share benchmark's light viewers: event-stream clients of the caption page, on their own
thread and loop, noting when each word arrives (``engine.evaluation.share`` and
``engine.evaluation.share_session`` use them)."""

from __future__ import annotations

import asyncio
import json
import threading
import time

__all__ = ["LightViewers", "wait_for"]


class LightViewers:
    """``count`` event-stream clients on their own thread and loop; ``arrivals[i][position]`` is
    when client ``i`` first got each word (ms since the epoch)."""

    def __init__(self, url: str, count: int) -> None:
        self.url, self.count = url, count
        self.arrivals: list[dict[int, float]] = [{} for _ in range(count)]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="light-viewers", daemon=True)
        self._tasks: list = []

    def start(self) -> LightViewers:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), self._loop).result(30)
        return self

    @property
    def native_id(self) -> int | None:
        return self._thread.native_id

    async def _open(self) -> None:
        import aiohttp

        self._client = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        self._tasks = [asyncio.create_task(self._read(i)) for i in range(self.count)]

    async def _read(self, index: int) -> None:
        arrivals = self.arrivals[index]
        async with self._client.get(self.url + "events") as response:
            async for raw in response.content:
                if raw.startswith(b'data: {"type": "word"'):
                    now = time.time() * 1000
                    position = json.loads(raw[6:])["position"]
                    arrivals.setdefault(position, now)

    def stop(self) -> None:
        async def close():
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self._client.close()

        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(close(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)


def wait_for(condition, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False
