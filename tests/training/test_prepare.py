"""training.prepare: raw .txt folders -> labelled word streams, on small inline texts."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.evaluation.corpus import dev_corpus
from engine.punctuation.labelled_text import PrepareError, prepare_folder
from engine.words import CASE_LABELS, PUNCT_LABELS
from training.prepare import build_lexicon, load_corpus, save_corpus, split_documents

DEV = dev_corpus()


def prepare(tmp_path, text, name="a.txt", **kw):
    folder = tmp_path / "corpus"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return prepare_folder(folder, **kw)


def only(tmp_path, text):
    docs = prepare(tmp_path, text)
    assert len(docs) == 1
    return docs[0]


def marks(doc):
    return [PUNCT_LABELS[m] for m in doc.marks]


def cases(doc):
    return [CASE_LABELS[c] for c in doc.cases]


def test_marks_map_onto_four_classes_and_the_first_one_wins(tmp_path):
    d = only(
        tmp_path,
        "one, two. three? four! five; six: seven -- eight — nine… ten... "
        "eleven?! twelve,-- thirteen - fourteen",
    )
    assert (
        d.words == "one two three four five six seven eight nine ten eleven twelve thirteen fourteen".split()
    )
    assert marks(d) == [
        "comma",
        "period",
        "question",
        "period",
        "period",
        "comma",
        "comma",
        "comma",
        "period",
        "period",
        "question",
        "comma",
        "comma",
        "none",
    ]


def test_a_mark_with_no_word_before_it_is_dropped(tmp_path):
    d = only(tmp_path, "... and so, it began.")
    assert d.words == ["and", "so", "it", "began"] and marks(d) == ["none", "comma", "none", "period"]


def test_quotes_and_brackets_go_apostrophes_inside_words_stay(tmp_path):
    d = only(tmp_path, "“Don’t,” she said (quietly) [to him] {ok} 'tis o'er, \"well-known\" Moses' ‘rod’.")
    assert d.words == "don't she said quietly to him ok tis o'er well-known moses rod".split()
    assert marks(d)[0] == "comma" and marks(d)[8] == "comma" and marks(d)[-1] == "period"


def test_numbers_stay_one_word_without_marks_inside(tmp_path):
    d = only(tmp_path, "It rose from 3.5 to 4.2 percent, then 18,000 men came in 1999. Verse 23:13 says.")
    assert "3.5" in d.words and "4.2" in d.words and "18,000" in d.words and "23:13" in d.words
    assert marks(d)[d.words.index("4.2")] == "none" and marks(d)[d.words.index("1999")] == "period"


def test_abbreviations_do_not_end_sentences(tmp_path):
    d = only(tmp_path, "Mr. Knightley met Dr. Perry and R. A. Smith etc. and so on etc. Then they left.")
    assert marks(d)[:2] == ["none", "none"] and not d.sentence_initial[1]  # "Mr." then "Knightley"
    assert marks(d)[d.words.index("r")] == "none"  # an initial
    first, second = [i for i, w in enumerate(d.words) if w == "etc"]
    assert marks(d)[first] == "none" and marks(d)[second] == "period" and d.sentence_initial[second + 1]


def test_gutenberg_boilerplate_is_stripped(tmp_path):
    text = (
        "The Project Gutenberg EBook of Moby Dick\n\nLicense blah, blah.\n\n"
        "*** START OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n\n"
        "Call me Ishmael. Some years ago, never mind how long.\n\n"
        "*** END OF THIS PROJECT GUTENBERG EBOOK MOBY DICK ***\n\nDonations are welcome.\n"
    )
    d = only(tmp_path, text)
    assert d.words == "call me ishmael some years ago never mind how long".split()


def test_headings_titles_and_separator_lines_are_dropped(tmp_path):
    text = (
        "EMMA\n\nBy Jane Austen\n\n\nVOLUME I\n\nCHAPTER XII\n\n"
        "Emma Woodhouse, handsome, clever, and rich.\n\n* * * * *\n\n---------\n\n"
        "Chapter 3\n\nShe was the youngest.\n\nCHAPTER 1. Loomings.\n\nACT II\n\n====\n\nFinis\n"
    )
    d = only(tmp_path, text)
    assert d.words == "emma woodhouse handsome clever and rich she was the youngest".split()


def test_verse_numbers_list_markers_and_speaker_tags_are_stripped(tmp_path):
    text = (
        "1:1 In the beginning God created the heavens.\n1:2 The earth was empty.\n\n"
        "HAMLET. To be, or not to be.\n\nCASSIO: Good night, honest Iago.\n\n"
        "1ST NANTUCKET SAILOR. Oh, boys.\n\n(1) Dust the shelves.\n"
    )
    d = only(tmp_path, text)
    assert (
        d.words
        == (
            "in the beginning god created the heavens the earth was empty to be or not to be "
            "good night honest iago oh boys dust the shelves"
        ).split()
    )


def test_all_caps_word_mid_paragraph_is_not_a_speaker_tag(tmp_path):
    d = only(
        tmp_path, "It was not money he wanted, as I\ncould plainly see, but\nTHAT.  He had not the power."
    )
    i = d.words.index("that")
    assert cases(d)[i] == "upper" and marks(d)[i] == "period" and d.words[i + 1] == "he"
    d = only(
        tmp_path, "Oh, we can just as well go and see\nHER.  Elinor told her no.\n\nHAMLET\n\nNo more, NASA."
    )
    assert d.words == "oh we can just as well go and see her elinor told her no no more nasa".split()
    assert cases(d)[d.words.index("her")] == "lower" and cases(d)[-1] == "upper"  # emphasis caps, acronym


def test_fortune_entries_are_documents_and_credits_are_dropped(tmp_path):
    text = (
        'Help!  I\'m trapped.\n%\nA closed mouth, they say, gathers no foot.\n\t\t-- Anonymous, "Sayings"\n'
        "\t\t   continued credit line\n%\n%\nWhom computers would destroy, they first drive mad.\n"
    )
    docs = prepare(tmp_path, text, name="fortunes.txt")
    assert [d.words[:2] for d in docs] == [["help", "i'm"], ["a", "closed"], ["whom", "computers"]]
    assert docs[1].words[-1] == "foot" and marks(docs[1])[-1] == "period"
    assert all(d.sentence_initial[0] for d in docs)
    assert len({d.name for d in docs}) == 3 and docs[0].name.startswith("corpus/fortunes.txt#")


def test_stage_directions_and_editorial_lines_are_dropped(tmp_path):
    text = (
        "CORNELIUS, Lords, and Attendants_\n\nThough yet of Hamlet our dear brother's death\n"
        "The memory be green.\n\n*Exit Audley, and\nreturns.*\n\n[Song of Solomon 8:6]\n\nGood night.\n"
    )
    d = only(tmp_path, text)
    assert d.words[0] == "though" and d.words[-2:] == ["good", "night"] and "audley" not in d.words
    assert "solomon" not in d.words and "cornelius" not in d.words


def test_junk_and_code_lines_are_skipped(tmp_path):
    text = (
        "The system crashed again today.\n   /\\_/\\   ( o.o )  > ^ <\n"
        "if (x == 0) { return; }\n#define NULL 0\n12 34 56 78 90\nNobody cared.\n"
    )
    d = only(tmp_path, text)
    assert d.words == "the system crashed again today nobody cared".split()


def test_line_breaks_do_not_leak_into_the_stream(tmp_path):
    d = only(tmp_path, "the cat sat\non the mat and\nthen it slept.\n")
    assert d.words == "the cat sat on the mat and then it slept".split()
    assert marks(d) == ["none"] * 9 + ["period"]
    d = only(tmp_path, "It was well-\nknown to all.\n")  # a word broken at the line end
    assert d.words == ["it", "was", "well-known", "to", "all"]


def test_case_labels_and_mixed_case(tmp_path):
    d = only(tmp_path, "Then NASA told me and Emma that I need an iPhone at McDonald's, x.")
    got = dict(zip(d.words, cases(d)))
    assert got["nasa"] == "upper" and got["emma"] == "capitalized" and got["i"] == "capitalized"
    assert got["told"] == "lower" and got["iphone"] == "lower" and got["mcdonald's"] == "capitalized"
    assert sorted(d.mixed.values()) == ["McDonald's", "iPhone"]
    assert all(d.words[i] == form.lower() for i, form in d.mixed.items())


def test_capitals_that_are_typography_take_the_case_seen_mid_sentence(tmp_path):
    text = (
        "My heart is heavy, and I know it,\nAnd so my tongue is still,\nAnd Hamlet waits.\n\n"
        'He said, "Do it now, and do it well." Then Hamlet and I went home, and so to bed.\n'
    )
    d = only(tmp_path, text)
    got = [(w, c) for w, c in zip(d.words, cases(d))]
    assert got.count(("and", "capitalized")) == 0  # verse-line starts lowered: "and" is lower mid-line
    assert ("do", "capitalized") not in got  # after an opening quote
    assert ("hamlet", "capitalized") in got and ("i", "capitalized") in got


def test_sentence_initial_flags(tmp_path):
    d = only(tmp_path, "One two. Three, four? Five; six\nseven.")
    assert d.sentence_initial.tolist() == [True, False, True, False, True, True, False]


def test_lexicon_keeps_only_consistently_mixed_case_words(tmp_path):
    text = (
        "I bought an iPhone today. My iPhone broke. Her iPhone works, and the iPhone is fine.\n"
        "We met McDonald twice, McDonald and McDonald.\nThe cat sat. tHe dog, the bird, the fish.\n"
        "A DeLorean once. Then a Delorean, a Delorean, a Delorean, a Delorean.\n"
    )
    docs = prepare(tmp_path, text)
    assert build_lexicon(docs) == {"iphone": "iPhone", "mcdonald": "McDonald"}
    assert build_lexicon(docs, min_count=5) == {}


def test_long_files_are_cut_at_sentence_ends(tmp_path):
    text = " ".join(f"Sentence number {k} has a few words." for k in range(300))
    docs = prepare(tmp_path, text, max_words=100)
    assert sum(len(d.words) for d in docs) == 300 * 7 and all(len(d.words) <= 100 for d in docs)
    assert all(d.marks[-1] == PUNCT_LABELS.index("period") for d in docs)


def test_split_is_reproducible_and_per_source(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("\n%\n".join(f"Fortune {k} is short, really." for k in range(200)))
    (folder / "b.txt").write_text(" ".join(f"Line {k} of prose goes here." for k in range(3000)))
    docs = prepare_folder(folder, max_words=500)
    train, held = split_documents(docs, 0.1, seed=1)
    again = split_documents(docs, 0.1, seed=1)
    assert [d.name for d in held] == [d.name for d in again[1]]
    assert [d.name for d in held] != [d.name for d in split_documents(docs, 0.1, seed=2)[1]]
    assert len(train) + len(held) == len(docs) and not {d.name for d in train} & {d.name for d in held}
    for source in ("corpus/a.txt", "corpus/b.txt"):  # every source contributes about 10%
        total = sum(len(d.words) for d in docs if d.name.startswith(source))
        part = sum(len(d.words) for d in held if d.name.startswith(source))
        assert 0.08 * total <= part <= 0.2 * total


def test_cache_round_trip(tmp_path):
    docs = prepare(tmp_path, "Hello, iPhone world. Is it NASA?\n%\nSecond entry here, McDonald's too.\n%\n")
    path = tmp_path / "cache.npz"
    save_corpus(docs, path)
    back = load_corpus(path)
    assert len(back) == len(docs) == 2
    for a, b in zip(docs, back):
        assert (a.name, a.words, a.mixed) == (b.name, b.words, b.mixed)
        for field in ("marks", "cases", "sentence_initial"):
            assert np.array_equal(getattr(a, field), getattr(b, field))
            assert getattr(a, field).dtype == getattr(b, field).dtype
    with np.load(path, allow_pickle=False) as z:  # no pickled objects inside
        assert all(z[k].dtype != object for k in z.files)


def test_clear_errors(tmp_path):
    with pytest.raises(PrepareError, match="no such folder"):
        prepare_folder(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.md").write_text("Not a txt file.")
    with pytest.raises(PrepareError, match="no .txt files"):
        prepare_folder(tmp_path / "empty")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "latin1.txt").write_bytes("Caf\xe9 au lait.".encode("latin-1"))
    with pytest.raises(PrepareError, match=r"latin1\.txt.*not UTF-8"):
        prepare_folder(bad)


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "training.prepare", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )


def test_cli_writes_cache_and_stats(tmp_path):
    folder = tmp_path / "corpus"
    folder.mkdir()
    (folder / "a.txt").write_text("Hello, world. How are you? Fine.\n")
    out = tmp_path / "c.npz"
    r = run_cli(str(folder), "--out", str(out), "--stats")
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    assert stats["corpus/a.txt"]["words"] == 6 and stats["corpus/a.txt"]["question"] == pytest.approx(
        100 / 6, 0.01
    )
    assert "corpus/a.txt" in r.stderr and len(load_corpus(out)) == 1
    r = run_cli(str(tmp_path / "nope"), "--out", str(out))
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "no such folder" in r.stderr


@pytest.mark.skipif(not (DEV / "austen_persuasion.txt").exists(), reason="shared dev corpus not present")
@pytest.mark.needs_corpus
def test_real_dev_file_has_plausible_mark_shares(tmp_path):
    (tmp_path / "dev").mkdir()
    (tmp_path / "dev" / "persuasion.txt").write_bytes((DEV / "austen_persuasion.txt").read_bytes())
    docs = prepare_folder(tmp_path / "dev")
    marks = np.concatenate([d.marks for d in docs])
    share = {label: float(np.mean(marks == i)) for i, label in enumerate(PUNCT_LABELS)}
    assert len(marks) > 70_000
    assert 0.03 < share["period"] < 0.10 and 0.05 < share["comma"] < 0.13 and 0.001 < share["question"] < 0.02
    words = {w for d in docs for w in d.words}
    assert not words & {"chapter", "finis"}  # headings gone
