"""Fitting the cue fusion (numpy, no torch): the fit recovers planted weights, the stacked examples
are the decoder's steps, and the command writes a new model folder and never overwrites one."""

import json

import numpy as np
import pytest

from engine.evaluation.synthetic_model import write_model_dir
from engine.punctuation.model import PunctuationModel
from engine.punctuation.scoring import ModelScorer
from engine.punctuation.word_cues import cue_index
from engine.words import PUNCT_LABELS
from training.fit_cue_fusion import _softmax, fit_hidden, fit_weights, main, stacked_examples
from training.piper_speech import PART_VERSION
from training.speech_windows import load_speech

MARKS = ["none", "none", "comma", "none", "none", "period"]


def test_the_fit_recovers_a_planted_weight():
    rng = np.random.default_rng(0)
    n = 20000
    offsets = np.log(rng.dirichlet(np.ones(4), size=n))
    x = rng.normal(size=(n, 2))
    planted = np.array([[0.0, 1.5, -1.0, 0.0], [0.0, 0.0, 2.0, 0.0]])
    z = offsets + x @ planted
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = np.array([rng.choice(4, p=row) for row in p])
    w = fit_weights(offsets, x, y, l2=1e-4)
    # a softmax's weights are fixed up to a constant per feature: compare differences to "none"
    np.testing.assert_allclose(w - w[:, :1], planted, atol=0.12)


def test_the_hidden_layer_learns_what_adding_cues_cannot_and_refits_the_same():
    """A period where one of two cues is on but not both (an XOR): the log-linear fit can only add
    them and learns nothing, the hidden layer finds it, and the same seed gives the same weights."""
    rng = np.random.default_rng(1)
    n = 12000
    offsets = np.log(np.full((n, 4), 0.25))
    cues = rng.integers(0, 2, size=(n, 2)).astype(float)
    x = np.hstack([np.ones((n, 1)), cues])  # with a constant, as "timed" is for recognized words
    one = cues[:, 0] != cues[:, 1]
    y = np.where(rng.random(n) < np.where(one, 0.9, 0.05), PUNCT_LABELS.index("period"), 0)

    def nll(z):
        return float(-np.mean(np.log(_softmax(z)[np.arange(n), y])))

    linear = nll(offsets + x @ fit_weights(offsets, x, y))
    w, a, b = fit_hidden(offsets, x, cues, y, units=4, epochs=20, seed=3)
    hidden = nll(offsets + x @ w + np.tanh(cues @ a) @ b)
    assert hidden < linear - 0.1
    again = fit_hidden(offsets, x, cues, y, units=4, epochs=20, seed=3)
    for p, q in zip((w, a, b), again):
        np.testing.assert_array_equal(p, q)


def write_reading(folder, number=0, n=60, recognizer=None):
    """A reading in ``piper_speech``'s format: a hum for each word, longer gaps at the marks."""
    rate, rows, t = 16000, [], 0.5
    audio = np.zeros(int(rate * (1 + n * 1.2)), np.int16)
    for j in range(n):
        mark = MARKS[j % len(MARKS)]
        d = 0.3 if mark == "none" else 0.45
        span = np.arange(int(t * rate), int((t + d) * rate))
        audio[span] = (3000 * np.sin(2 * np.pi * 140 * span / rate)).astype(np.int16)
        rows.append({"text": "word", "start": round(t, 3), "end": round(t + d, 3), "written": "",
                     "ref_mark": mark if j != 7 else None, "ref_case": "lower", "ref_index": j,
                     "excerpt": 0})  # fmt: skip
        t += d + {"none": 0.04, "comma": 0.3, "period": 0.8}[mark]
    data = {"version": PART_VERSION, "audio_seconds": len(audio) / rate, "words": rows,
            "reference": {"words": [], "marks": [], "cases": []}}  # fmt: skip
    if recognizer is not None:
        data["recognizer"] = {"name": recognizer, "live": True}
    np.save(folder / f"reading_{number:04d}.npy", audio)
    (folder / f"reading_{number:04d}.json").write_text(json.dumps(data))


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    root = tmp_path_factory.mktemp("fusion")
    folder = root / "speech"
    folder.mkdir()
    for k in range(5):
        write_reading(folder, k)
    return root, folder, write_model_dir(root / "model")


def test_stacked_examples_are_the_decoders_steps(speech):
    _, folder, model_dir = speech
    model = PunctuationModel(model_dir)
    readings = load_speech(folder, model.tokenizer)[:1]
    stacked = stacked_examples(readings, ModelScorer(model), 2, 1.2, 0.28)
    probs, rows, next_rows, truth, groups, ahead = stacked
    n, labelled = 60, 59  # word 7 stands for no reference word
    # word p is asked at lookaheads 0..2, fewer at the end of the reading
    assert len(truth) == 3 * labelled - (2 + 1)
    assert set(ahead.tolist()) == {0, 1, 2} and not groups.any()
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    # at lookahead 0 the gap after the newest word is known only once a silence has begun
    newest = ahead == 0
    assert not rows[newest & (truth != PUNCT_LABELS.index("period")), cue_index("pause_known")].any()
    assert rows[ahead == 1, cue_index("pause_known")].all()
    assert rows[:, cue_index("prosody_known")].all()  # the hum was measured under every word
    # the next word's row is there once it has come: the row that word has at the same step
    # (a step asks lookaheads 2, 1, 0 in turn)
    assert not next_rows[newest].any() and next_rows[ahead == 1, cue_index("timed")].all()
    late = np.flatnonzero(ahead == 2)
    late = late[ahead[late + 1] == 1]  # where the next word has a reference word (not word 7)
    assert len(late) > 50
    np.testing.assert_array_equal(next_rows[late], rows[late + 1])
    assert n == len(readings[0].words)


def test_the_command_writes_a_new_model_folder_and_never_overwrites(speech, capsys):
    root, folder, model_dir = speech
    out = root / "fused"
    assert main(["--speech", str(folder), "--model-dir", str(model_dir), "--write", str(out)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["readings"] == 5 and report["cross_validated"]["fused"]["nll"] > 0
    model = PunctuationModel(out)
    assert model.config.cue_fusion is not None
    # the gaps say where the marks are: the fit learns that a long gap is a period
    weights = model.config.cue_fusion.weights
    k = model.config.cue_fusion.cues.index("pause_over_0.7")
    assert weights[k, PUNCT_LABELS.index("period")] > weights[k, PUNCT_LABELS.index("none")]
    before = (out / "config.json").read_text()
    assert main(["--speech", str(folder), "--model-dir", str(model_dir), "--write", str(out)]) == 2
    assert "nothing is overwritten" in capsys.readouterr().err
    assert (out / "config.json").read_text() == before
    assert main(["--speech", str(root / "nothing"), "--model-dir", str(model_dir)]) == 2
    assert "no readings" in capsys.readouterr().err
    assert (
        main(["--speech", str(folder), "--model-dir", str(model_dir), "--cues", "pause", "hint_comma"]) == 2
    )
    assert "no such cue ['hint_comma']" in capsys.readouterr().err


def test_a_recognizers_own_fusion_is_written_beside_the_default(speech, tmp_path, capsys):
    root, whisper_folder, model_dir = speech
    sphinx = tmp_path / "pocketsphinx"
    sphinx.mkdir()
    for k in range(5):
        write_reading(sphinx, k, recognizer="pocketsphinx")
    fused = root / "fused_default"
    assert main(["--speech", str(whisper_folder), "--model-dir", str(model_dir), "--write", str(fused)]) == 0
    both = tmp_path / "both"
    args = ["--speech", str(sphinx), "--model-dir", str(fused), "--write", str(both)]
    assert main([*args, "--recognizer", "pocketsphinx"]) == 0
    capsys.readouterr()
    config = PunctuationModel(both).config
    assert np.array_equal(config.cue_fusion.weights, PunctuationModel(fused).config.cue_fusion.weights)
    assert set(config.cue_fusion_by_recognizer) == {"pocketsphinx"}
    assert config.cue_fusion_for("pocketsphinx") is not config.cue_fusion
    # Each fusion a model carries is judged on the words given, beside the new fit.
    assert main(["--speech", str(sphinx), "--model-dir", str(both), "--recognizer", "pocketsphinx"]) == 0
    carried = json.loads(capsys.readouterr().out)["fusions_carried"]
    assert set(carried) == {"default", "pocketsphinx"} and all(v["nll"] > 0 for v in carried.values())
    # Whose words they are is checked: one line, exit 2, nothing written.
    assert main(["--speech", str(sphinx), "--model-dir", str(model_dir), "--write", str(tmp_path / "x")]) == 2
    assert "pocketsphinx's words, not whisper's; give --recognizer pocketsphinx" in capsys.readouterr().err
    assert main(["--speech", str(whisper_folder), "--model-dir", str(model_dir), "--recognizer", "vosk"]) == 2
    assert "not vosk's" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_command_fits_a_hidden_layer_when_asked(speech, tmp_path, capsys):
    root, folder, model_dir = speech
    out = tmp_path / "hidden"
    args = [
        "--speech",
        str(folder),
        "--model-dir",
        str(model_dir),
        "--hidden-units",
        "4",
        "--write",
        str(out),
    ]
    assert main(args) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["hidden_units"] == 4 and report["cross_validated"]["fused_hidden"]["nll"] > 0
    fusion = PunctuationModel(out).config.cue_fusion
    assert fusion.hidden_in.shape == (len(fusion.hidden_names()), 4) and np.abs(fusion.hidden_out).sum() > 0
    assert "hidden_layer" in json.loads((out / "config.json").read_text())["cue_fusion"]
    assert main(["--speech", str(folder), "--model-dir", str(model_dir), "--hidden-units", "-2"]) == 2
    assert "--hidden-units -2: give 0 or more" in capsys.readouterr().err
