"""training.tune_hints: the measured evidence from the committed statistics, the sweep on a real
(small, random) ONNX model over a hand-built Whisper reading, and the CLI's refusals and write."""

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.punctuation.model import PunctuationModel
from tests.training.test_eval_recognized import recognized
from training import tune_hints
from training.speech_cues import DEFAULT_STATS


def test_the_committed_statistics_give_a_proper_confusion_and_capital_rates():
    fusion = tune_hints.fusion_from_stats(json.loads(DEFAULT_STATS.read_text()))
    assert np.allclose(fusion.mark_given_mark.sum(axis=1), 1.0, atol=0.02)  # rows floored at 0.005
    assert np.all(np.diag(fusion.mark_given_mark) > 0.4)  # Whisper mostly writes the true mark
    lower, capitalized, _ = fusion.capital_given_case
    assert lower < 0.05 < 0.4 < capitalized  # inside a sentence a capital means a name
    with pytest.raises(ValueError, match="python -m training.speech_cues"):
        tune_hints.fusion_from_stats({"hints": {"counts": [[1] * 4] * 4}})


def test_the_default_statistics_are_the_piper_ones_the_shipped_weights_came_from():
    """``tune_hints`` with no ``--stats`` starts from the evidence in the shipped config.json."""
    from engine.punctuation.model import ModelConfig, model_folder

    measured = tune_hints.fusion_from_stats(json.loads(tune_hints.PIPER_STATS.read_text()))
    shipped = ModelConfig.load(model_folder(None)).hint_fusion
    assert np.allclose(measured.mark_given_mark, shipped.mark_given_mark, atol=1e-4)
    assert np.allclose(measured.capital_given_case, shipped.capital_given_case, atol=1e-4)
    assert tune_hints.PIPER_STATS != DEFAULT_STATS  # the tagger's synthetic cues keep espeak-ng's


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return write_model_dir(tmp_path_factory.mktemp("tune") / "m")


def test_the_sweep_keeps_the_pair_whose_worst_file_gains_most(model_dir):
    model = PunctuationModel(model_dir)
    measured = tune_hints.fusion_from_stats(json.loads(DEFAULT_STATS.read_text()))
    sets = [recognized("whisper"), replace(recognized("whisper"), file="austen_persuasion")]
    report = tune_hints.tune(model, sets, measured, (0.5, 4.0), (0.0, 1.0), (1.0, 2.0))
    trials = report["mark_trials"]
    assert len(trials) == 4 and len(report["case_trials"]) == 2
    best = max(trials, key=lambda t: (t["worst_gain"], t["mean_gain"]))
    assert (report["chosen"]["mark_weight"], report["chosen"]["none_shift"]) == (
        best["mark_weight"],
        best["none_shift"],
    )
    # Whisper wrote the reference exactly here: heavier trust in it can only gain
    by_weight = {(t["mark_weight"], t["none_shift"]): t["worst_gain"] for t in trials}
    assert by_weight[(4.0, 0.0)] >= by_weight[(0.5, 0.0)]
    assert all(t["files"]["endless_sky"]["whisper_own"]["marks_f1"] == 100.0 for t in trials)


def write_reading(path, tts):
    sets = [recognized("whisper").to_dict()]
    path.write_text(json.dumps({"tts": tts, "sets": [{**s, "tts": tts} for s in sets]}))
    return path


def test_the_cli_refuses_the_held_out_voice_and_writes_the_choice_into_the_model(model_dir, tmp_path, capsys):
    held_out = write_reading(tmp_path / "festival.json", "festival")
    assert tune_hints.main(["--model-dir", str(model_dir), "--reading", str(held_out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "held out" in err and "\n" not in err
    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy)
    tuning = write_reading(tmp_path / "espeak.json", "espeak-ng")
    assert tune_hints.main(["--model-dir", str(copy), "--reading", str(tuning), "--write"]) == 0
    report = json.loads(capsys.readouterr().out)
    fusion = PunctuationModel(copy).config.hint_fusion
    assert fusion is not None and fusion.to_config() == report["chosen"]
    assert PunctuationModel(model_dir).config.hint_fusion is None  # only the copy was written


def test_two_tuning_readings_are_judged_file_by_file_together(model_dir, tmp_path, capsys):
    """A small tuning reading is noisy: several are pooled, each reading's file one trial row."""
    first = write_reading(tmp_path / "a.json", "piper")
    second = write_reading(tmp_path / "b.json", "piper")
    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy)
    assert tune_hints.main(["--model-dir", str(copy), "--reading", str(first), str(second)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["reading"] == [str(first), str(second)]
    assert set(report["mark_trials"][0]["files"]) == {"endless_sky #1", "endless_sky #2"}
    assert report["words"] == 2 * len(recognized("whisper").words)
