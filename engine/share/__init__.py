"""Captions on any screen: a read-only caption page and event stream served from this computer
(OBS's browser source, a second screen) or, behind a token, to the local network (a phone in the
room). ``share_captions(session)`` starts it; ``ShareServer.stop()`` ends it."""

from __future__ import annotations

from engine.share.feed import ShareFeed
from engine.share.qr import qr_png, write_qr
from engine.share.server import DEFAULT_PORT, MAX_VIEWERS, OBS_OPTIONS, ShareServer

__all__ = [
    "DEFAULT_PORT",
    "MAX_VIEWERS",
    "OBS_OPTIONS",
    "ShareFeed",
    "ShareServer",
    "qr_png",
    "share_captions",
    "write_qr",
]


def share_captions(session, **options) -> ShareServer:
    """Serve ``session``'s captions (``ShareServer``'s ``options``), also those said before it
    was shared; the server's ``stop()`` also unsubscribes its feed. On a port in use (``port``
    given), another is taken."""
    feed = ShareFeed(session_builder=getattr(session, "builder", None))  # a session under way
    session.subscribe(feed)
    try:
        try:
            server = ShareServer(feed, **options).start()
        except OSError:
            if not options.get("port"):
                raise
            server = ShareServer(feed, **{**options, "port": 0}).start()
    except BaseException:
        session.unsubscribe(feed)
        raise
    stop = server.stop

    def stop_and_unsubscribe(timeout: float = 5.0) -> None:
        stop(timeout)
        try:
            session.unsubscribe(feed)
        except ValueError:  # already
            pass

    server.stop = stop_and_unsubscribe
    return server
