"""The vocabulary benchmark's live half: its vocabulary sizes and its voices."""

from engine.evaluation.vocabulary import VOICES, _parser
from engine.evaluation.vocabulary_live import sized_vocabulary
from engine.evaluation.vocabulary_material import load_distractors, load_sentences, sentences_vocabulary


def test_a_sized_vocabulary_holds_the_said_terms_first_then_distractors_never_said():
    sentences = load_sentences()
    terms, distractors = sentences_vocabulary(sentences), load_distractors()
    said = {t.entry.term for s in sentences for t in s.terms}
    assert len(sized_vocabulary(terms, distractors, 0)) == 0
    fifty = sized_vocabulary(terms, distractors, 50)
    assert len(fifty) == 50 and all(e.term in said for e in fifty)
    five_hundred = sized_vocabulary(terms, distractors, 500)
    assert len(five_hundred) == 500
    assert {e.term for e in five_hundred} >= said
    assert sum(e.term not in said for e in five_hundred) == 500 - len(terms)


def test_the_benchmark_reads_piper_at_three_styles_and_both_debian_voices():
    assert {"piper", "piper-slow", "piper-fast", "festival", "flite"} <= set(VOICES)
    args = _parser().parse_args(["--live", "--entries", "0", "50", "500", "--voice", "piper-fast"])
    assert args.live and args.entries == [0, 50, 500] and args.voice == ["piper-fast"]
