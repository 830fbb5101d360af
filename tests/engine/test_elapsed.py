"""``format_elapsed``: the one way a time from a start is written, in its three widths."""

import pytest

from engine.elapsed import format_elapsed


@pytest.mark.parametrize(
    ("seconds", "short", "column", "clock"),
    [
        (0, "0:00", "00:00", "0:00:00"),
        (12.9, "0:12", "00:12", "0:00:12"),  # whole seconds, not rounded up
        (303, "5:03", "05:03", "0:05:03"),
        (725, "12:05", "12:05", "0:12:05"),
        (3723, "1:02:03", "1:02:03", "1:02:03"),
        (36000, "10:00:00", "10:00:00", "10:00:00"),
        (-4, "0:00", "00:00", "0:00:00"),  # a moment before the start is the start
    ],
)
def test_each_width_writes_the_form_its_place_shows(seconds, short, column, clock):
    assert format_elapsed(seconds) == short  # Markdown export, progress bar, `history`
    assert format_elapsed(seconds, width=5) == column  # the History window's hits
    assert format_elapsed(seconds, width=7) == clock  # the captions window's session clock


def test_the_markdown_export_and_the_progress_bar_write_times_this_way():
    from engine.cli.progress import render
    from engine.transcript.markdown import to_markdown
    from engine.transcript.transcript import Transcript, TranscriptWord

    hello = TranscriptWord("hello", 3723.4, 3723.8, case="capitalized")
    words = [hello, TranscriptWord("there", 3724.0, 3724.3, mark="period")]
    assert "**[1:02:03]** Hello there." in to_markdown(Transcript(words))
    assert render(0.5, 303.7).endswith(" 5:03")
