"""The pieces of the end-to-end benchmark: excerpts (engine/evaluation/e2e_speech.py), alignment and scores
(engine/evaluation/e2e_score.py), latency (engine/evaluation/e2e.py)."""

import sys

import pytest

from engine.evaluation.e2e import Probe, Shown, first_display, latencies
from engine.evaluation.e2e_score import align, case_class, mark_scores, score, split_by_spans, word_errors
from engine.evaluation.e2e_speech import Excerpt, choose_excerpts
from engine.punctuation.labelled_text import label_text, make_document
from engine.transcript.transcript import TranscriptWord


# -- alignment -------------------------------------------------------------------------------------
def test_align_identical_and_empty():
    assert align(["a", "b"], ["A", "b"]) == [(0, 0), (1, 1)]  # case-insensitive
    assert align([], ["x"]) == [(None, 0)]
    assert align(["x"], []) == [(0, None)]
    assert align([], []) == []


def test_align_substitution_deletion_insertion():
    ref = "the cat sat on the mat".split()
    hyp = "the cat sad on mat today".split()
    pairs = align(ref, hyp)
    assert pairs == [(0, 0), (1, 1), (2, 2), (3, 3), (4, None), (5, 4), (None, 5)]
    e = word_errors(ref, hyp, pairs)
    assert (e["substitutions"], e["deletions"], e["insertions"]) == (1, 1, 1)
    assert e["wer"] == pytest.approx(3 / 6, abs=1e-4)


def test_align_prefers_pairing_to_an_insertion_and_a_deletion():
    assert align(["a", "b", "c"], ["a", "x", "c"]) == [(0, 0), (1, 1), (2, 2)]


def test_align_is_a_minimal_edit_script():
    import random

    rng = random.Random(1)
    for _ in range(50):
        ref = [rng.choice("abcd") for _ in range(rng.randint(0, 8))]
        hyp = [rng.choice("abcd") for _ in range(rng.randint(0, 8))]
        pairs = align(ref, hyp)
        assert [i for i, _ in pairs if i is not None] == list(range(len(ref)))
        assert [j for _, j in pairs if j is not None] == list(range(len(hyp)))
        # the cost of the script equals the Levenshtein distance
        e = word_errors(ref, hyp, pairs)
        d = list(range(len(hyp) + 1))
        for i, a in enumerate(ref, 1):
            prev, d[0] = d[0], i
            for j, b in enumerate(hyp, 1):
                prev, d[j] = d[j], min(prev + (a != b), d[j] + 1, d[j - 1] + 1)
        assert e["substitutions"] + e["deletions"] + e["insertions"] == d[-1]


# -- marks and casing ------------------------------------------------------------------------------
def test_mark_scores_on_aligned_pairs_and_strict():
    ref_marks = ["none", "comma", "none", "period", "question"]
    hyp_marks = ["comma", "comma", "period", "none", "period"]  # the last word is an insertion
    pairs = [(0, 0), (1, 1), (2, None), (3, 2), (4, 3), (None, 4)]
    s = mark_scores(ref_marks, hyp_marks, pairs)
    assert (s["comma"]["tp"], s["comma"]["fp"], s["comma"]["fn"]) == (1, 1, 0)
    assert (s["period"]["tp"], s["period"]["fp"], s["period"]["fn"]) == (1, 0, 0)
    assert (s["question"]["tp"], s["question"]["fn"]) == (0, 1)
    assert (s["micro"]["tp"], s["micro"]["fp"], s["micro"]["fn"]) == (2, 1, 1)
    assert s["micro"]["f1"] == pytest.approx(2 / 3, abs=1e-4)
    strict = mark_scores(ref_marks, hyp_marks, pairs, strict=True)
    assert strict["period"]["fp"] == 1  # the inserted word's period
    assert strict["micro"]["fn"] == 1  # the deleted word had no mark


def test_case_class_of_displayed_forms():
    assert case_class("hello") == "lower"
    assert case_class("Hello") == "capitalized"
    assert case_class("NASA") == "upper"
    assert case_class("I") == "capitalized"
    assert case_class("iPhone") == "lower"  # mixed case: the class of its first letter


def test_score_splits_recognized_words_between_excerpts_by_time():
    a = Excerpt("a#0:0", ["hello", "anne"], ["comma", "period"], ["capitalized", "capitalized"])
    b = Excerpt("b#0:0", ["go", "home"], ["none", "question"], ["capitalized", "lower"])
    spans = [(0.5, 1.5), (2.5, 3.5)]
    hyp = ["hello", "and", "go", "home"]
    times = [0.7, 1.3, 2.7, 3.2]
    result = score(
        [a, b],
        spans,
        hyp,
        ["none", "period", "none", "period"],
        ["capitalized", "lower", "capitalized", "lower"],
        times,
    )
    assert result["substitutions"] == 1 and result["wer"] == 0.25
    assert result["marks"]["period"]["tp"] == 1  # "anne." and "and." are aligned
    assert result["marks"]["question"]["fn"] == 1 and result["marks"]["period"]["fp"] == 1
    assert result["casing"]["words"] == 3 and result["casing"]["accuracy"] == 1.0
    assert result["casing"]["nonlower"]["tp"] == 2
    # per excerpt, the same micro counts: in the first "anne." a hit and "hello," missed; in the
    # second, a period for a question is a false alarm and a miss
    assert result["marks_by_excerpt"] == [(1, 0, 1), (0, 1, 1)]
    micro = result["marks"]["micro"]
    assert [sum(c) for c in zip(*result["marks_by_excerpt"])] == [micro["tp"], micro["fp"], micro["fn"]]


def test_split_by_spans_cuts_in_the_middle_of_silences():
    spans = [(0.0, 1.0), (2.0, 3.0), (4.0, 5.0)]
    assert split_by_spans([0.2, 1.4, 1.6, None, 3.6, 9.0], spans) == [0, 0, 1, 1, 2, 2]


# -- excerpts --------------------------------------------------------------------------------------
def _doc(name, text):
    spelled, marks, _ = label_text(text)
    return make_document(name, spelled, marks)


def test_excerpts_are_whole_speakable_sentences_from_every_source_in_turn():
    one = " ".join(
        f"Sentence {w} of the first file is here; and it goes on."  # ';' is a period
        for w in "one two three four five six seven eight nine ten".split()
    )
    two = (
        " ".join(
            f"Is this {w} from the second file? It is, said {w}."
            for w in "red green blue black white pink gray brown".split()
        )
        + " 18,000 ships came. Then none."
    )
    docs = [_doc("x/one.txt#0", one), _doc("x/two.txt#0", two)]
    excerpts = choose_excerpts(docs, count=4, min_words=12, max_words=30, seed=3)
    assert [e.source.split("#")[0] for e in excerpts] == ["x/one.txt", "x/two.txt"] * 2
    for e in excerpts:
        assert 12 <= len(e.words) <= 30
        assert e.marks[-1] in ("period", "question") and e.cases[0] != "lower"
        assert all(w.isalpha() for w in e.words)  # "18,000" is never chosen
        # the reference is the text as written with the four marks: "here. And it goes on."
        after_end = [c for c, before in zip(e.cases[1:], e.marks) if before in ("period", "question")]
        assert "lower" not in after_end
    assert excerpts[0].text.startswith("Sentence ") and excerpts[0].text.endswith(".")
    with pytest.raises(ValueError):
        choose_excerpts(docs, count=50, min_words=12, max_words=30)


def test_excerpt_text_carries_case_and_marks():
    e = Excerpt(
        "s",
        ["i", "think", "so", "nasa", "agrees"],
        ["none", "none", "comma", "none", "question"],
        ["capitalized", "lower", "lower", "upper", "lower"],
    )
    assert e.text == "I think so, NASA agrees?"


# -- latency ---------------------------------------------------------------------------------------
def test_first_display_needs_the_same_text_and_an_overlapping_span():
    word = TranscriptWord("cat", 1.0, 1.4)
    shown = [
        Shown(10.0, 0.0, "cat", 5.0, 5.3),  # another "cat", later in the stream
        Shown(11.0, 0.0, "cap", 1.0, 1.4),
        Shown(12.0, 0.0, "cat", 0.95, 1.3),
        Shown(13.0, 0.0, "cat", 1.0, 1.4),
    ]
    assert first_display(word, shown).wall == 12.0
    assert first_display(TranscriptWord("dog", 1.0, 1.4), shown) is None


def test_latencies_against_the_wall_clock_and_the_stream():
    probe = Probe()
    words = [TranscriptWord("a", 0.0, 0.5), TranscriptWord("b", 0.6, 1.0)]
    probe.shown = [Shown(100.7, 0.7, "a", 0.0, 0.4), Shown(101.3, 1.3, "b", 0.6, 1.0)]
    probe.settled = {0: (101.5, 1.5), 1: (102.0, 2.0)}
    wall = latencies(words, probe, origin=100.0)
    assert wall["clock"] == "wall"
    assert wall["first_display_s"]["p50"] == pytest.approx(0.25)  # 0.2 and 0.3
    assert wall["settled_s"]["max"] == pytest.approx(1.0)
    stream = latencies(words, probe, origin=None)
    assert stream["clock"] == "stream" and stream["settled_s"]["words"] == 2


def test_probe_records_partials_appends_and_the_last_settle():
    from engine.events import Appended, PartialWords, Settled
    from engine.words import Word

    probe = Probe()
    probe([PartialWords((Word("x", 0.0, 0.2),))])
    probe([Appended(0, Word("x", 0.0, 0.2)), Settled(0, "none", "lower", 1, "x")])
    probe([Settled(0, "period", "lower", 1, "x")])
    assert [s.text for s in probe.shown] == ["x", "x"]
    assert probe.shown[0].wall <= probe.shown[1].wall <= probe.settled[0][0]


def test_engine_e2e_imports_neither_torch_nor_training():
    import subprocess

    code = (
        "import sys, engine.evaluation.e2e, engine.evaluation.e2e_speech; "
        "engine.evaluation.e2e_score.case_class('A'); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'torch', 'training'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_decoder_options_are_typed():
    from engine.evaluation.e2e import parse_options

    assert parse_options(["lw=6.5", "bestpath=no", "fwdflat=yes", "maxhmmpf=3000", "hmm=/m"]) == {
        "lw": 6.5,
        "bestpath": False,
        "fwdflat": True,
        "maxhmmpf": 3000,
        "hmm": "/m",
    }
    with pytest.raises(SystemExit):
        parse_options(["lw"])


def test_lockstep_waits_for_the_engine_before_each_chunk():
    from types import SimpleNamespace

    from engine.evaluation.e2e import Lockstep

    calls = []
    inner = SimpleNamespace(
        read=lambda timeout: calls.append("read") or "chunk",
        finished=False,
        start=lambda: calls.append("start"),
    )
    source = Lockstep(inner)
    source.session = SimpleNamespace(engine=SimpleNamespace(wait_idle=lambda timeout: calls.append("idle")))
    assert source.start() is source and source.read(0.1) == "chunk" and source.finished is False
    assert calls == ["start", "idle", "read"]


# -- the whole command -----------------------------------------------------------------------------
TALK = (
    "The weather is nice today, and we are going to the park. Can you send me the report before "
    "the end of the day? The train was late this morning, so I missed the meeting. Thank you all "
    "for coming, and have a good evening."
)


@pytest.fixture
def talk_corpus(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "talk.txt").write_text(TALK + "\n")
    return folder


def _run_main(args, tmp_path, capsys):
    import json
    import shutil

    from engine.evaluation.e2e import main

    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng): it speaks the excerpts")
    out = tmp_path / "e2e.json"
    assert main([*args, "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert json.loads(capsys.readouterr().out) == result
    return result


@pytest.mark.needs_espeak
def test_the_command_speaks_recognizes_and_scores_an_excerpt(talk_corpus, tiny_model_dir, tmp_path, capsys):
    """Real espeak-ng speech through real PocketSphinx, the stabiliser and the engine (random-weight
    model: its marks mean nothing here), in lockstep: every figure is there and sane."""
    result = _run_main(
        [
            "--corpus",
            str(talk_corpus),
            "--excerpts",
            "1",
            "--min-words",
            "10",
            "--max-words",
            "30",
            "--model-dir",
            str(tiny_model_dir),
            "--fast",
        ],
        tmp_path,
        capsys,
    )
    assert result["error"] is None and result["all_settled"] and not result["paced"]
    assert result["recognizer_settings"]["final_pass"] is False  # the live setting
    assert 10 <= result["reference_words"] <= 30 and result["excerpts"][0].startswith("corpus/talk.txt#0:")
    # PocketSphinx hears espeak-ng's voice, if badly (here 2 of the 10 words of the last sentence)
    hits = result["reference_words"] - result["substitutions"] - result["deletions"]
    assert hits >= 2 and result["wer"] <= 1.0, result
    assert result["committed_words"] >= result["recognized_words"] > 0
    # one window per word at most, plus the end-of-utterance flushes (at most one per word too)
    assert 0 < result["model_windows"] <= 2 * result["committed_words"]
    assert result["model_windows_per_committed_word"] == pytest.approx(
        result["model_windows"] / result["committed_words"], abs=1e-3
    )
    assert result["retraction_rate"] == pytest.approx(
        result["retracted_words"] / result["committed_words"], abs=1e-3
    )
    lat = result["latency"]
    assert lat["clock"] == "stream" and lat["first_display_s"]["words"] > 0 and lat["settled_s"]["words"] > 0
    assert lat["first_display_s"]["p50"] <= lat["settled_s"]["p50"]  # a mark settles after its word shows
    assert set(result["marks"]) == {"comma", "period", "question", "micro"}
    assert result["punctuation_model_sha256"] and result["elapsed_seconds"] > 0
    assert "targets" not in result  # judged on paced runs only


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_paced_run_is_timed_against_the_wall_clock(talk_corpus, tiny_model_dir, tmp_path, capsys):
    result = _run_main(
        [
            "--corpus",
            str(talk_corpus),
            "--excerpts",
            "1",
            "--min-words",
            "10",
            "--max-words",
            "14",
            "--gap",
            "0.5",
            "--model-dir",
            str(tiny_model_dir),
        ],
        tmp_path,
        capsys,
    )
    assert result["paced"] and result["latency"]["clock"] == "wall"
    assert result["wall_seconds"] >= result["audio_seconds"] - 0.3  # real time: no faster than the audio
    assert 0 < result["cpu_share_of_one_core"] < 2
    # the punctuation engine's own share, apart from the recognizer's; both really measured
    engine, recognizer = result["engine_cpu_share_of_one_core"], result["recognizer_cpu_share_of_one_core"]
    assert 0 < engine and 0 < recognizer
    assert engine + recognizer <= result["cpu_share_of_one_core"] + 0.05  # threads of this process
    assert set(result["targets"]) == {"first_display_p90_s", "settled_p90_s", "cpu_share_of_one_core"}
    # a word cannot settle before it was spoken, nor show long before its end
    assert result["latency"]["settled_s"]["p50"] > 0 and result["latency"]["first_display_s"]["p50"] > -1
