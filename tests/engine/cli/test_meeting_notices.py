"""What ``livecap listen`` says of a meeting beyond its captions: the words the echo guard hid,
once, with the option that shows them; the sources it listens to, by the names the user knows."""

import io

from engine.cli.listen import session_spec
from engine.cli.main import build_parser
from engine.cli.terminal_captions import TerminalCaptions
from engine.events import Appended, Settled, WordsHidden
from engine.words import Word


def test_words_hidden_as_echo_are_said_once_with_the_option_and_the_total_after_the_captions():
    out, err = io.StringIO(), io.StringIO()
    captions = TerminalCaptions(out, err, interactive=False)
    captions([WordsHidden((Word("yes", speaker="me"),) * 12, 12)])
    captions([Appended(0, Word("hello", speaker="others")), Settled(0, "period", "capitalized", 1, "Hello")])
    captions([WordsHidden((Word("no", speaker="me"),) * 3, 15)])
    captions([WordsHidden((Word("so", speaker="me"),), 16)])
    assert err.getvalue() == (
        "livecap: 12 words hidden as possible echo: --no-echo-guard shows every word "
        "(a headset has no echo); the journal keeps them\n"
    )
    captions.finish()
    assert err.getvalue().splitlines()[1:] == [
        "livecap: 16 words hidden as possible echo in all, kept in the journal"
    ]
    assert out.getvalue() == "Others: Hello.\n"


def test_no_echo_guard_is_listens_option_for_a_headset():
    args = build_parser().parse_args(["listen", "--source", "a.wav", "--source", "b.wav", "--no-echo-guard"])
    assert session_spec(args).echo_guard is False
    args = build_parser().parse_args(["listen", "--source", "a.wav", "--source", "b.wav"])
    assert session_spec(args).echo_guard is True
