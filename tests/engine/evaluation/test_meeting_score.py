"""Scoring a captioned meeting (engine/evaluation/meeting_score.py): the tracks' clock is found
from the words when the players started late, so words are placed in the turns that said them
and attribution counts only words shown on the wrong side."""

from engine.evaluation.meeting_score import score_run, track_offset
from engine.evaluation.meeting_speech import Turn


class _Meeting:
    def __init__(self, turns):
        self.turns = turns


TURNS = [
    Turn("others:1", "we met on tuesday to plan the budget", 0.5, 3.5),
    Turn("me", "that sounds good to me", 4.0, 5.6),
    Turn("others:2", "the schedule is mostly settled", 6.0, 8.0),
]


def shown(lag: float, offset: float, speakers=None) -> list[dict]:
    """Every turn's words, evenly timed over its span, as the session showed them ``lag`` late."""
    words = []
    for k, turn in enumerate(TURNS):
        said = turn.words
        step = (turn.end - turn.start) / len(said)
        speaker = speakers[k] if speakers else turn.speaker
        for i, text in enumerate(said):
            start = turn.start + i * step + lag + offset
            words.append(
                {"text": text, "speaker": speaker, "start": start, "end": start + step, "latency": 1.0}
            )
    return words


def test_the_players_late_start_is_found_from_the_words():
    words = shown(lag=1.7, offset=5.0)
    assert abs(track_offset(TURNS, words, 5.0) - 6.7) < 0.11


def test_words_of_the_right_side_played_late_are_not_counted_as_misattributed():
    run = {"words": shown(lag=1.7, offset=5.0), "offset": 5.0, "wall_s": 10.0}
    out = score_run(_Meeting(TURNS), run)
    assert out["attribution_error"] == 0.0 and out["echo_leakage"] == 0.0
    assert out["player_lag_s"] == 1.7
    assert out["wer_me"] == 0.0 and out["wer_others"] == 0.0


def test_an_others_turn_shown_as_me_is_leakage():
    run = {"words": shown(1.2, 5.0, speakers=["others:1", "me", "me"]), "offset": 5.0, "wall_s": 10.0}
    out = score_run(_Meeting(TURNS), run)
    said = len(TURNS[0].words) + len(TURNS[2].words)
    assert out["echo_leakage"] == round(len(TURNS[2].words) / said, 4)
    assert out["attribution_error"] > 0.2
