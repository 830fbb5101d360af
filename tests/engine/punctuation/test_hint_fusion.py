"""Whisper's writing folded into the tagger's probabilities: the arithmetic, the config that
carries it, both decoders on a real (small, random) ONNX model, and who decides by default."""

import json

import numpy as np
import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.events import Settled
from engine.punctuation.hint_fusion import FLOOR, HintFusion
from engine.punctuation.model import ModelConfig, ModelError, PunctuationModel
from engine.punctuation.offline import OfflineDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.words import PUNCT_LABELS, Word

# P(written | true): rows none, comma, period, question
CONFUSION = np.array(
    [
        [0.96, 0.02, 0.01, 0.01],
        [0.30, 0.60, 0.08, 0.02],
        [0.10, 0.20, 0.65, 0.05],
        [0.10, 0.10, 0.30, 0.50],
    ]
)
CAPITALS = np.array([0.02, 0.6, 0.0])  # lower, capitalized, upper (0 is floored)


def test_a_written_mark_multiplies_in_its_column_and_unwritten_words_are_untouched():
    fusion = HintFusion(CONFUSION, CAPITALS, mark_weight=2.0, case_weight=1.0, none_shift=0.5)
    words = [Word("end", written="end."), Word("so"), Word("Anne", written="Anne")]
    punct, case = fusion.evidence(words, ["said", "", "met"])
    period = PUNCT_LABELS.index("period")
    expected = CONFUSION[:, period] ** 2.0
    expected[0] *= np.exp(0.5)
    assert np.allclose(punct[0], expected)
    assert np.all(punct[1] == 1.0) and np.all(case[1] == 1.0)  # no writing: no evidence
    # "Anne" capitalised inside Whisper's sentence ("met" ends none): evidence for a name
    assert np.allclose(case[2], [0.02, 0.6, FLOOR])
    # the same capital after Whisper's own period says nothing about the word
    _, after_period = fusion.evidence([Word("anne", written="Anne")], ["met."])
    assert np.all(after_period == 1.0)


def test_fusion_turns_an_unsure_none_into_the_written_period_but_not_a_sure_one():
    fusion = HintFusion(CONFUSION, CAPITALS)
    unsure = np.array([[0.6, 0.1, 0.25, 0.05]])
    sure = np.array([[0.995, 0.002, 0.002, 0.001]])
    case = np.array([[1.0, 0.0, 0.0]])
    word = [Word("end", written="end.")]
    fused, _ = fusion.fuse(unsure, case, word, [""])
    assert PUNCT_LABELS[int(np.argmax(fused[0]))] == "period" and np.isclose(fused.sum(), 1.0)
    kept, _ = fusion.fuse(sure, case, word, [""])
    assert PUNCT_LABELS[int(np.argmax(kept[0]))] == "none"
    same, _ = fusion.fuse(unsure, case, [Word("end")], [""])
    assert same is unsure  # nothing written: the tagger's own rows


def test_config_round_trip_and_a_malformed_block_is_one_line():
    fusion = HintFusion(CONFUSION, CAPITALS, 1.5, 2.0, 1.0)
    config = ModelConfig(hint_fusion=fusion)
    again = ModelConfig.from_dict(json.loads(json.dumps(config.to_dict())))
    assert again.hint_fusion.to_config() == fusion.to_config()
    assert "hint_fusion" not in ModelConfig().to_dict()
    broken = {**config.to_dict(), "hint_fusion": {"mark_given_true_mark": {"none": {}}}}
    with pytest.raises(ModelError, match="config.json is malformed") as err:
        ModelConfig.from_dict(broken)
    assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match="4x4"):
        HintFusion(CONFUSION[:3], CAPITALS)


WORDS = "so we went home then it rained all day did you see it".split()
# What a recognizer might write: periods and a question where the random model has no idea.
WRITTEN = "So we went home. Then it rained all day. Did you see it?".split()


@pytest.fixture(scope="module")
def fused_model(tmp_path_factory):
    folder = write_model_dir(tmp_path_factory.mktemp("fusion") / "m")
    config = json.loads((folder / "config.json").read_text())
    # A heavy weight makes the writing decide wherever it says anything.
    config["hint_fusion"] = HintFusion(CONFUSION, CAPITALS, mark_weight=12.0).to_config()
    (folder / "config.json").write_text(json.dumps(config))
    return PunctuationModel(folder)


def timed(written: bool):
    return [
        Word(w, 0.4 * k, 0.4 * k + 0.3, 1.0, wr if written else "")
        for k, (w, wr) in enumerate(zip(WORDS, WRITTEN))
    ]


def streamed_marks(model, words):
    decoder = StreamingDecoder.from_model(model)
    events = decoder.push_many(words) + decoder.flush()
    settled = {e.position: e.mark for e in events if isinstance(e, Settled)}
    return [settled[p] for p in range(len(words))]


def test_both_decoders_follow_strong_evidence_and_ignore_unwritten_words(fused_model):
    from engine.punctuation.recognizer_marks import written_marks

    expected = [written_marks(w)[0] for w in timed(True)]
    assert expected.count("period") == 2 and expected[-1] == "question"
    assert streamed_marks(fused_model, timed(True)) == expected
    offline = OfflineDecoder.from_model(fused_model).decode(timed(True))
    assert [s.mark for s in offline] == expected
    # the same model on the bare words is the random model alone, which does not write these
    bare = streamed_marks(fused_model, timed(False))
    assert bare != expected


def test_with_whisper_auto_folds_its_marks_in_where_the_model_can_and_keeps_them_where_it_cannot(
    fused_model, tmp_path
):
    from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
    from engine.session.marks import choose_decoder

    class Whisper:  # what an English Whisper declares
        name, language, multilingual, detects_language = "whisper", "en", False, False
        writes_marks, revises_writing, translating = True, False, False

    settings = fused_model.config.decoder
    engine, _ = choose_decoder(fused_model, settings, Whisper(), "engine")
    assert isinstance(engine, StreamingDecoder) and engine.hint_fusion is fused_model.config.hint_fusion
    # with Whisper's marks as hints the engine is ahead on every held-out reading (docs/QUALITY.md)
    auto, _ = choose_decoder(fused_model, settings, Whisper(), "auto")
    assert isinstance(auto, StreamingDecoder) and auto.hint_fusion is fused_model.config.hint_fusion
    asked, _ = choose_decoder(fused_model, settings, Whisper(), "recognizer")
    assert isinstance(asked, RecognizerMarksDecoder)
    plain = PunctuationModel(write_model_dir(tmp_path / "plain"))  # cannot fold them in: Whisper's own
    kept, _ = choose_decoder(plain, plain.config.decoder, Whisper(), "auto")
    assert isinstance(kept, RecognizerMarksDecoder)


def test_live_and_after_stop_a_model_that_folds_whispers_marks_in_marks_the_words_unless_asked_not_to(
    fused_model, tmp_path
):
    from engine.cli.transcribe import whose_marks_in_files
    from engine.session.marks import keeps_written_marks, whose_marks

    class Whisper:  # what an English Whisper declares
        name, language, multilingual, detects_language = "whisper", "en", False, False
        writes_marks, revises_writing, translating = True, False, False

    class Korean(Whisper):
        language = "ko"

    plain = PunctuationModel(write_model_dir(tmp_path / "plain"))
    assert not keeps_written_marks(Whisper(), "auto", fused_model)  # live: the engine with hints
    assert whose_marks(Whisper(), "auto", fused_model) == "engine"
    assert keeps_written_marks(Whisper(), "auto")  # a whole file (no model given): Whisper's own
    assert whose_marks_in_files(Whisper(), "auto") == (True, True)  # as `livecap transcribe` asks
    assert whose_marks_in_files(Whisper(), "engine") == (False, True)
    assert keeps_written_marks(Whisper(), "auto", plain)  # live, a model that cannot fold them in
    assert not keeps_written_marks(Whisper(), "auto", fused_model, offline=True)
    assert whose_marks(Whisper(), "auto", fused_model, offline=True) == "engine"
    assert keeps_written_marks(Whisper(), "auto", plain, offline=True)  # a model that cannot fold them in
    assert keeps_written_marks(Whisper(), "recognizer", fused_model, offline=True)  # asked for
    assert whose_marks(Korean(), "auto", fused_model, offline=True) == "recognizer"  # not English


def test_a_transcript_keeps_the_writing_through_json_and_repunctuation(fused_model):
    from engine.session.batch import repunctuate
    from engine.transcript.transcript import Transcript

    transcript = repunctuate(timed(True), fused_model)
    assert [w.written for w in transcript.words] == WRITTEN
    again = Transcript.from_dict(json.loads(json.dumps(transcript.to_dict())))
    assert [w.written for w in again.words] == WRITTEN
    # refining the refined transcript folds the same writing in: the marks do not drift
    assert [w.mark for w in repunctuate(again.words, fused_model).words] == [w.mark for w in transcript.words]


def test_a_newer_writing_of_a_pending_word_is_read_and_a_settled_mark_stays(fused_model):
    from dataclasses import replace

    words = timed(True)
    # Live Whisper commits "home" before a later decode writes the period after it.
    committed = [replace(w, written=w.written.rstrip(".?")) for w in words]

    def marks(revise: bool) -> list[str]:
        decoder = StreamingDecoder.from_model(fused_model)
        events = decoder.push_many(committed[:4])  # "home" is the newest word: nothing settles it yet
        if revise:
            assert decoder.revise_writings({3: words[3]}, settled=0) == []  # no inference here
        events += decoder.push_many(committed[4:]) + decoder.flush()
        settled = {e.position: e.mark for e in events if isinstance(e, Settled)}
        return [settled[p] for p in range(len(words))]

    assert marks(revise=False)[3] == "none"  # its first writing says no mark, strongly
    assert marks(revise=True)[3] == "period"
    decoder = StreamingDecoder.from_model(fused_model)
    events = decoder.push_many(committed) + decoder.flush()
    settled = {e.position: e.mark for e in events if isinstance(e, Settled)}
    decoder.revise_writings({3: words[3]}, settled=0)  # too late: "home" settled
    later = decoder.push_many([Word("again", 9.0, 9.3, 1.0, "again")]) + decoder.flush()
    assert settled[3] == "none" and all(e.position == len(words) for e in later if isinstance(e, Settled))


def test_a_capital_written_inside_a_sentence_makes_no_name_the_tagger_does_not_see():
    fusion = HintFusion(CONFUSION, CAPITALS)
    unsure_name = np.array([[0.7, 0.3, 0.0]])  # lower, capitalized, upper: a capital would win
    seen_name = np.array([[0.45, 0.55, 0.0]])
    none = np.array([[1.0, 0.0, 0.0, 0.0]])

    def fused_case(case, written, text=None):
        word = Word(text or written.lower().strip(".,"), written=written)
        return ["lower", "capitalized", "upper"][
            int(np.argmax(fusion.fuse(none, case, [word], ["over"])[1][0]))
        ]

    assert fused_case(unsure_name, "Plan") == "lower"  # "over Plan": Whisper's capital alone
    assert fused_case(seen_name, "Plan") == "capitalized"  # the tagger leans to a name: kept
    assert fused_case(seen_name, "plan") == "lower"  # a lower-case writing still counts against one
    assert fused_case(unsure_name, "May") == "capitalized"  # a month Whisper capitalised
    assert fused_case(np.array([[0.9, 0.05, 0.05]]), "NASA") == "upper"  # an acronym as written
    assert fused_case(np.array([[0.9, 0.05, 0.05]]), "U.S.", "u.s.") == "upper"


def test_the_shipped_model_keeps_whispers_capital_only_on_names_and_capitalises_months():
    """Through the real punctuation model, live and offline: Whisper's words as it wrote them."""
    from engine.punctuation.model import model_folder

    model = PunctuationModel(model_folder(None), threads=1)
    text = (
        "It is 12% over Plan for the Quarter, so we moved the review with NASA to march 15th. "
        "They will march to the Office in Paris on monday."
    )
    words = [Word(t.strip(".,").lower(), 0.4 * k, 0.4 * k + 0.3, 1.0, t) for k, t in enumerate(text.split())]
    decoder = StreamingDecoder.from_model(model)
    events = [e for w in words for e in decoder.push(w)] + decoder.flush()
    live = {e.position: e.form for e in events if isinstance(e, Settled)}
    offline = {s.position: s.form for s in OfflineDecoder.from_model(model).decode(words)}
    for forms in (live, offline):
        shown = [forms[p] for p in range(len(words))]
        assert "Plan" not in shown and "Quarter" not in shown, shown
        assert "Office" not in shown, shown
        assert {"NASA", "Paris", "Monday"} <= set(shown), shown
        assert shown[shown.index("15th") - 1] == "March", shown
        assert shown[shown.index("to", shown.index("They")) - 1] == "march", shown
