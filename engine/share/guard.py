"""What the caption page's server refuses, decided before any handler runs, and the headers every
answer carries.

- On the local network every path starts with the link's token (``/TOKEN/``, ``/TOKEN/events``):
  anything else is refused with 403, the token compared in constant time.
- On this computer only (127.0.0.1) the ``Host`` header must name it (``127.0.0.1:PORT`` or
  ``localhost:PORT``): a web page whose own name was pointed at 127.0.0.1 (DNS rebinding) is
  refused.
- The event stream also checks ``Origin``: absent (OBS, a script) or the page's own.
- The page takes no request bodies: one announced is refused with 413 before it is read.
- Every answer, refusals too, carries a strict Content-Security-Policy (scripts and styles only
  from the server's own files), ``nosniff``, no caching (the address holds the token) and no
  referrer (nor the token in one).
"""

from __future__ import annotations

import hmac

from aiohttp import web

__all__ = ["SECURITY_HEADERS", "Guard"]

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def _refusal(status: int, reason: str) -> web.Response:
    return web.Response(status=status, text=reason + "\n", headers={"Connection": "close"})


class Guard:
    """The checks of one server: ``token`` None on this computer only; ``port`` once bound."""

    def __init__(self, token: str | None, max_body: int) -> None:
        self.token = token
        self.port = 0
        self.max_body = max_body

    def hosts(self) -> set[str]:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    def refusal(self, request: web.Request) -> web.Response | None:
        """Why ``request`` is refused (an answer), or None to serve it."""
        length = request.content_length
        if (length is not None and length > self.max_body) or "Transfer-Encoding" in request.headers:
            return _refusal(413, "the caption page takes no request body")
        if self.token is None:
            if request.headers.get("Host", "") not in self.hosts():
                return _refusal(403, "this page is served to this computer only")
        else:
            given = request.path.split("/")[1] if request.path.count("/") >= 1 else ""
            if not hmac.compare_digest(given.encode(), self.token.encode()):
                return _refusal(403, "this link's token is wrong or has been renewed")
        if request.path.endswith("/events"):
            origin = request.headers.get("Origin")
            if origin is not None and origin != f"http://{request.headers.get('Host', '')}":
                return _refusal(403, "the event stream is served to this page only")
        return None

    @web.middleware
    async def middleware(self, request: web.Request, handler):
        refused = self.refusal(request)
        return refused if refused is not None else await handler(request)


async def add_security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer's headers (``on_response_prepare``): refusals and aiohttp's own errors too."""
    response.headers.update(SECURITY_HEADERS)
