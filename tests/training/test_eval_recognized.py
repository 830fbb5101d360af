"""The recognizer-output and out-of-source tables of training.evaluate, on real (small, random)
ONNX models and a hand-built recognized set."""

import pytest

from engine.evaluation.e2e_speech import Excerpt
from engine.evaluation.recognized_sets import RecognizedSet
from engine.evaluation.synthetic_model import write_model_dir
from engine.evaluation.whisper_marks import engine_live_marks
from engine.punctuation.model import PunctuationModel
from engine.words import Word
from training.eval_recognized import out_of_source_table, recognized_tables, recognized_targets

WORDS = "the ship is ready but the crew is not do you want more crew".split()
WRITTEN = "The ship is ready, but the crew is not. Do you want more crew?".split()


def recognized(recognizer="whisper"):
    excerpt = Excerpt(
        "dev/endless_sky.txt#0:0",
        WORDS,
        ["none"] * 3 + ["comma"] + ["none"] * 4 + ["period"] + ["none"] * 4 + ["question"],
        ["capitalized"] + ["lower"] * 8 + ["capitalized"] + ["lower"] * 4,
    )
    words = [
        Word(w, 0.5 + 0.4 * k, 0.8 + 0.4 * k, 1.0, written if recognizer == "whisper" else "")
        for k, (w, written) in enumerate(zip(WORDS, WRITTEN))
    ]
    batches = [(words[:5], 3.0), (words[5:10], 5.0), (words[10:], 7.0)]
    return RecognizedSet("endless_sky", recognizer, "festival", [excerpt], [(0.5, 6.5)], batches)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    cued = PunctuationModel(write_model_dir(root / "cues", cues=True))
    return cued, PunctuationModel(write_model_dir(root / "plain"))


def test_whisper_words_are_scored_three_ways_and_the_targets_read_them(models):
    cued, plain = models
    tables = recognized_tables(cued, [recognized("whisper"), recognized("pocketsphinx")])
    row = tables["whisper"]["endless_sky"]
    assert set(row) >= {"engine_alone", "engine_with_hints", "recognizer_own"}
    assert row["recognizer_own"]["marks_f1"] == 100.0  # Whisper wrote exactly the reference marks
    assert "recognizer_own" not in tables["pocketsphinx"]["endless_sky"]  # it writes none
    assert tables["whisper"]["mean"]["recognizer_own"]["marks_f1"] == 100.0
    target = recognized_targets({"recognized": tables})["whisper_words_engine_alone_minus_whisper"]
    assert target["measured"]["endless_sky"] == round(row["engine_alone"]["marks_f1"] - 100.0, 1)
    assert not target["met"]
    plain_row = recognized_tables(plain, [recognized("whisper")])["whisper"]["endless_sky"]
    assert "engine_with_hints" not in plain_row


def test_hints_reach_the_model_only_when_asked(models):
    cued, _ = models
    batches = recognized("whisper").batches
    assert len(engine_live_marks(cued, batches, hints=True)) == len(WORDS)
    without = engine_live_marks(cued, batches, hints=False)
    stripped = [([Word(w.text, w.start, w.end) for w in ws], now) for ws, now in batches]
    assert engine_live_marks(cued, stripped, hints=True) == without  # hints=False is the bare words


def test_out_of_source_compares_two_models_on_the_same_file(models, tmp_path):
    from engine.punctuation.labelled_text import prepare_folder

    cued, plain = models
    (tmp_path / "chitchat.txt").write_text("How are you? Fine, thanks. And you? I am well. " * 20)
    files = {"dev/chitchat.txt": prepare_folder(tmp_path)}
    table = out_of_source_table(cued, plain, files, "chitchat")
    assert table["in_source"]["words"] == table["out_of_source"]["words"] > 100
    assert table["gap"] == round(table["in_source"]["f1"] - table["out_of_source"]["f1"], 1)
    with pytest.raises(ValueError, match="no dev file"):
        out_of_source_table(cued, plain, files, "wesnoth")


def test_evaluate_prints_the_new_tables_beside_the_text_ones(models, tmp_path, capsys):
    import json

    from training import evaluate as ev

    cued, plain = models
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "chitchat.txt").write_text("How are you? Fine, thanks. And you? I am well. " * 20)
    sets = tmp_path / "recognized.json"
    sets.write_text(json.dumps({"tts": "festival", "sets": [recognized("whisper").to_dict()]}))
    out = tmp_path / "report.json"
    args = ["--model-dir", str(cued.model_dir), "--dev", str(dev), "--threads", "1", "--thresholds", "0.6"]
    extra = ["--recognized", str(sets), "--held-out-model", str(plain.model_dir), "--out", str(out)]
    assert ev.main(args + extra) == 0
    report = json.loads(out.read_text())
    assert report["recognized"]["whisper"]["endless_sky"]["recognizer_own"]["marks_f1"] == 100.0
    assert report["out_of_source"]["left_out_of_training"] == "chitchat"
    assert {"whisper_words_with_hints_minus_whisper", "out_of_source_gap"} <= set(report["targets"])
    err = capsys.readouterr().err
    assert "whisper words (festival speech)" in err and "out of source (dev/chitchat.txt" in err


def test_the_engine_only_adds_to_the_recognizers_marks():
    from training.eval_recognized import engine_adds

    own = [("none", "We"), ("comma", "met,"), ("none", "then"), ("none", "left"), ("none", "early")]
    engine = [("period", "we"), ("none", "met"), ("none", "then"), ("period", "left"), ("none", "early")]
    fused = engine_adds(own, engine)
    assert [m for m, _ in fused] == ["period", "comma", "none", "period", "none"]  # Whisper's comma stays
    assert fused[1][1] == "Met," and fused[4][1] == "Early"  # after an added sentence end, a capital


def test_a_model_that_folds_whispers_marks_in_is_scored_with_them(tmp_path):
    import json

    from engine.punctuation.hint_fusion import HintFusion

    folder = write_model_dir(tmp_path / "fused")
    config = json.loads((folder / "config.json").read_text())
    confusion = [
        [0.97, 0.01, 0.01, 0.01],
        [0.3, 0.6, 0.08, 0.02],
        [0.1, 0.2, 0.65, 0.05],
        [0.1, 0.1, 0.3, 0.5],
    ]
    config["hint_fusion"] = HintFusion(confusion, [0.02, 0.6, 0.5], mark_weight=12.0).to_config()
    (folder / "config.json").write_text(json.dumps(config))
    row = recognized_tables(PunctuationModel(folder), [recognized("whisper")])["whisper"]["endless_sky"]
    # Whisper wrote the reference and the evidence is heavy: the engine with it scores as Whisper does
    assert row["engine_with_hints"]["marks_f1"] == row["recognizer_own"]["marks_f1"] == 100.0
    assert row["engine_alone"]["marks_f1"] < 100.0  # the random model alone does not
    l_max = PunctuationModel(folder).config.decoder.l_max
    for name in ("engine_alone", "engine_with_hints"):
        assert 0.0 <= row[name]["avg_lookahead"] <= l_max
    assert "avg_lookahead" not in row["recognizer_own"]  # its marks come with its words
    # the offline decoder (the text after Stop) folds the same evidence in
    assert row["engine_offline_with_hints"]["marks_f1"] == 100.0
    assert row["engine_offline"]["marks_f1"] < 100.0


def test_the_protocol_table_holds_every_reading_and_judges_the_held_out_ones(models):
    from training.eval_recognized import protocol_lines, protocol_rows, reading_label

    cued, _ = models
    festival = recognized("whisper")
    piper = recognized("whisper")
    piper.tts = "piper"
    slow = recognized("whisper")
    slow.tts, slow.style = "piper", {"length_scale": 1.45, "noise_scale": 0.95, "noise_w": 1.2}
    labels = [reading_label([s]) for s in (festival, piper, slow)]
    assert labels == ["festival", "piper", "piper 1.45/0.95/1.2"]
    readings = {label: recognized_tables(cued, [s]) for label, s in zip(labels, (festival, piper, slow))}
    rows = protocol_rows(readings)
    assert [r["reading"] for r in rows] == labels
    row = rows[0]
    assert row["alone_minus_own"] == round(row["engine_alone"] - row["whisper_own"], 1)
    assert row["whisper_own"] == 100.0  # the hand-built Whisper wrote exactly the reference
    targets = recognized_targets({"protocol": rows})
    held_out = targets["held_out_engine_alone_minus_whisper"]
    assert set(held_out["measured"]) == {"festival endless_sky", "piper 1.45/0.95/1.2 endless_sky"}
    assert not held_out["met"] and held_out["worst"] == min(held_out["measured"].values())
    assert set(targets["piper_engine_alone_minus_whisper"]["measured"]) == {"piper endless_sky"}
    assert "held_out_with_hints_minus_whisper" in targets
    low, high = row["alone_minus_own_interval"]
    assert low <= row["alone_minus_own"] <= high  # the file's own figure lies in its interval
    clear = [f"{r['reading']} {r['file']}" for r in rows[::2] if r["alone_minus_own_interval"][1] < 0]
    assert held_out["clear_misses"] == sorted(clear)
    assert len(protocol_lines(rows)) == 3 + len(rows)
