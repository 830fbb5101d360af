"""The shipped punctuation model and the files that describe it belong together: the size limit,
the engine's contract, and a report (and model card) measured on this very file."""

import json

import numpy as np

from engine.files.digest import file_digest
from engine.punctuation.model import PunctuationModel, default_model_dir
from engine.punctuation.model_inputs import build_window

MODEL_DIR = default_model_dir()


def test_the_shipped_model_is_under_25_megabytes_in_either_unit():
    assert (MODEL_DIR / "model.onnx").stat().st_size <= 25_000_000


def test_the_engine_loads_it_and_it_tags_every_word():
    model = PunctuationModel(MODEL_DIR)
    words = "so what do you think we should do about the meeting tomorrow".split()
    ids = model.tokenizer.encode_words(words)
    punct, case = model.tag([build_window(ids, len(ids) - 1, model.special)])[0]
    assert punct.shape == (len(words), 4) and case.shape == (len(words), 3)
    assert np.allclose(punct.sum(1), 1, atol=1e-5) and np.allclose(case.sum(1), 1, atol=1e-5)


def test_the_shipped_report_and_model_card_were_measured_on_this_file():
    report = json.loads((MODEL_DIR / "eval_report.json").read_text(encoding="utf-8"))
    config = json.loads((MODEL_DIR / "config.json").read_text(encoding="utf-8"))
    assert report["model"]["sha256"] == file_digest(MODEL_DIR / "model.onnx")
    assert report["model"]["decoder"] == config["decoder"]
    live = report["text"]["live_default"]["overall"]["overall"]["f1"]
    assert report["targets"]["live_default_f1"]["measured"] == live
    card = (MODEL_DIR / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert f"**{live:.1f}**" in card  # the card's live figure is the report's


def test_the_shipped_config_folds_timing_and_audio_in_and_text_stays_the_taggers():
    """The shipped config.json carries the cue fusion (docs/QUALITY.md): a long gap after a timed
    word moves it towards a sentence end, and typed text keeps the tagger's answer."""
    from engine.punctuation.cue_fusion import FUSED_CUES
    from engine.punctuation.word_cues import CUE_COUNT, word_cues

    fusion = PunctuationModel(MODEL_DIR).config.cue_fusion
    assert fusion is not None and fusion.cues == FUSED_CUES
    even = np.full((1, 4), 0.25)
    np.testing.assert_array_equal(fusion.fuse(even, np.zeros((1, CUE_COUNT))), even)
    # a long pause after a word whose audio was not heard (a journal's): the silence columns read
    # the gap, and the speaker's long pauses so far are the gaps of the sentences before
    from engine.words import Word

    words, at = [], 0.0
    for k in range(12):
        words.append(Word("word", at, at + 0.3))
        at += 0.3 + (1.2 if k % 4 == 3 else 0.05)
    cues = word_cues(words)
    unsure = np.array([[0.5, 0.25, 0.2, 0.05]])  # the words alone lean to no mark
    assert fusion.fuse(unsure, cues[[-5]])[0].argmax() == 2  # the fourth sentence's end (1.2 s): a period
    assert fusion.fuse(unsure, cues[[-6]])[0].argmax() == 0  # inside it (0.05 s): none


def test_the_shipped_config_has_pocketsphinxs_own_fusion_and_whisper_the_default():
    """PocketSphinx's words get the fusion fitted on them; Whisper's and Vosk's the default one."""
    from engine.punctuation.word_cues import CUE_COUNT, cue_index

    config = PunctuationModel(MODEL_DIR).config
    assert set(config.cue_fusion_by_recognizer) == {"pocketsphinx"}
    own = config.cue_fusion_for("pocketsphinx")
    assert own is not config.cue_fusion and own.cues == config.cue_fusion.cues
    assert config.cue_fusion_for("whisper") is config.cue_fusion_for("vosk") is config.cue_fusion
    even, row = np.full((1, 4), 0.25), np.zeros((1, CUE_COUNT))
    for name, value in (("timed", 1), ("pause_known", 1), ("pause", 1), ("pause_over_0.7", 1)):
        row[0, cue_index(name)] = value
    assert own.fuse(even, row)[0].argmax() == 2  # a long gap is a period in its words too
