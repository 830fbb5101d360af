"""Edits to a finished transcript carried back onto its timed words (app/main_window/edits.py)."""

from app.main_window.edits import apply_edits, parse_token
from app.profanity import mask
from engine.transcript.export import to_srt
from engine.transcript.transcript import Transcript, TranscriptWord


def transcript():
    words = [
        ("the", 0.0, 0.2, "none", "capitalized"),
        ("weather", 0.3, 0.6, "none", "lower"),
        ("is", 0.7, 0.8, "none", "lower"),
        ("nice", 0.9, 1.2, "period", "lower"),
        ("we", 2.0, 2.1, "none", "capitalized"),
        ("go", 2.2, 2.4, "none", "lower"),
        ("home", 2.5, 2.9, "period", "lower"),
    ]
    return Transcript([TranscriptWord(t, s, e, 0.8, m, c) for t, s, e, m, c in words])


def test_an_unedited_text_gives_back_the_same_transcript():
    t = transcript()
    out = apply_edits(t, t.text())
    assert [(w.text, w.start, w.end, w.mark, w.case, w.form) for w in out.words] == [
        (w.text, w.start, w.end, w.mark, w.case, w.form) for w in t.words
    ]


def test_fixed_marks_and_case_are_kept_with_the_times():
    out = apply_edits(transcript(), "The weather is nice, we go HOME?")
    assert out.text() == "The weather is nice, we go HOME?"
    nice, we, home = out.words[3], out.words[4], out.words[6]
    assert (nice.mark, nice.start, nice.end) == ("comma", 0.9, 1.2)
    assert (we.case, we.start) == ("lower", 2.0)
    assert (home.case, home.mark, home.end) == ("upper", "question", 2.9)
    assert all(w.confidence == 0.8 for w in out.words)  # matched words keep the recognizer's confidence


def test_replaced_inserted_and_deleted_words_get_sensible_times():
    out = apply_edits(transcript(), "The climate is really nice. We go.")
    texts = [w.text for w in out.words]
    assert texts == ["the", "climate", "is", "really", "nice", "we", "go"]
    climate, really = out.words[1], out.words[3]
    assert (climate.start, climate.end, climate.confidence) == (0.3, 0.6, 1.0)  # took "weather"'s time
    assert 0.8 <= really.start <= really.end <= 0.9  # the gap between "is" and "nice"
    assert out.words[-1].mark == "period" and out.has_times
    cues = to_srt(out)  # still a valid subtitle file
    assert "The climate is really nice." in cues


def test_punctuation_no_mark_can_say_stays_in_the_spelling():
    w = parse_token("wow!")
    assert (w.text, w.mark, w.form, w.display) == ("wow", "none", "wow!", "wow!")
    w = parse_token("“Hello,")
    assert (w.text, w.mark, w.display) == ("hello", "comma", "“Hello,")
    w = parse_token("iPhone.")
    assert (w.text, w.mark, w.form, w.display) == ("iphone", "period", "iPhone", "iPhone.")
    w = parse_token("...")
    assert w.display == "..."


def test_masked_words_left_alone_keep_their_original_spelling():
    t = Transcript(
        [TranscriptWord("oh", 0, 0.2, case="capitalized"), TranscriptWord("shit", 0.3, 0.5, mark="period")]
    )
    shown = " ".join(mask(w.display) for w in t.words)
    assert shown == "Oh s***."
    out = apply_edits(t, shown + " Sorry.", display=mask)
    assert out.text() == "Oh shit. Sorry."
    assert out.words[1].start == 0.3
