"""``livecap listen --share [--lan]``: the options as the real parser reads them, the one line
that says the address, and the page it names being served."""

import io
import urllib.error
import urllib.request

import pytest

from engine.cli.common import CliError
from engine.cli.main import build_parser
from engine.cli.share import start_sharing
from engine.fanout import FanOut
from engine.share import OBS_OPTIONS
from engine.share.feed import ShareFeed


def listen_args(*options):
    return build_parser().parse_args(["listen", *options])


def test_without_share_nothing_is_served():
    assert start_sharing(FanOut(), listen_args()) is None


def test_share_serves_this_computer_and_says_where_with_the_obs_address_in_one_line():
    session, err = FanOut(), io.StringIO()
    server = start_sharing(session, listen_args("--share"), err)
    try:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("livecap: captions shared at http://127.0.0.1:")
        assert f"{server.url}{OBS_OPTIONS}" in lines[0]
        with urllib.request.urlopen(server.url) as page:
            assert page.status == 200
        assert sum(isinstance(s, ShareFeed) for s in session._subscribers) == 1
    finally:
        server.stop()
    assert not server.running and session._subscribers == []


def test_lan_shares_behind_the_token_the_line_gives():
    err = io.StringIO()
    server = start_sharing(FanOut(), listen_args("--lan", "--share-minutes", "5"), err)
    try:
        line = err.getvalue().strip()
        assert server.token in line and "local network" in line
        address = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(f"{address}/{server.token}/") as page:
            assert page.status == 200
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{address}/")
        assert refused.value.code == 403
    finally:
        server.stop()


def test_a_time_limit_of_nothing_is_one_clear_error():
    with pytest.raises(CliError, match="--share-minutes"):
        start_sharing(FanOut(), listen_args("--share", "--share-minutes", "0"))


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_lan_link_comes_with_its_qr_code_and_the_code_reads_back_as_the_link():
    from engine.share import qr_png

    err = Terminal()
    server = start_sharing(FanOut(), listen_args("--lan"), err)
    try:
        lines = err.getvalue().splitlines()
        assert lines[0].startswith("livecap: captions shared at") and len(lines) > 10  # the code's rows
        assert any("\u2580" in line or "\u2584" in line or "\u2588" in line for line in lines[1:])
        assert qr_png(server.url).startswith(b"\x89PNG")
    finally:
        server.stop()
