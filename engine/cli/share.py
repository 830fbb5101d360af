"""``livecap listen --share [--lan]``: the caption page served while the session runs.

One line on stderr says the address (on the local network with its token, and a QR code of it
where stderr is a terminal); the page stops with the session."""

from __future__ import annotations

import sys

from engine.cli.common import CliError

__all__ = ["start_sharing"]


def start_sharing(session, args, err=None):
    """The caption server ``args`` ask for (``--share``, ``--lan``, ``--share-minutes``), started
    and said on ``err``; None where sharing was not asked for."""
    lan = getattr(args, "lan", False)
    if not (getattr(args, "share", False) or lan):
        return None
    from engine.share import DEFAULT_PORT, OBS_OPTIONS, share_captions

    err = err if err is not None else sys.stderr
    minutes = getattr(args, "share_minutes", None)
    if minutes is not None and minutes <= 0:
        raise CliError("--share-minutes must be more than 0")
    try:
        server = share_captions(
            session, lan=lan, port=DEFAULT_PORT, time_limit=None if minutes is None else minutes * 60
        )
    except OSError as exc:
        raise CliError(f"cannot share the captions: {exc.strerror or exc}") from None
    if lan:
        where = "on the local network (anyone with this link can read them; Ctrl-C stops)"
    else:
        where = f"on this computer only (OBS: {server.url}{OBS_OPTIONS})"
    print(f"livecap: captions shared at {server.url} {where}", file=err, flush=True)
    if lan and _is_terminal(err):
        from engine.share import write_qr

        write_qr(server.url, err)
    return server


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
