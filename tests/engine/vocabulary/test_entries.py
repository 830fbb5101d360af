"""Vocabulary lines: what an entry is, and a bad line refused in one line that names it."""

import pytest

from engine.vocabulary import Entry, VocabularyError, parse_entry, parse_vocabulary


def test_an_entry_has_a_term_spoken_forms_and_a_note():
    entry = parse_entry("PostgreSQL: post gres Q L,  postgres   # the billing database")
    assert entry == Entry("PostgreSQL", ("post gres Q L", "postgres"), "the billing database")
    assert parse_entry(entry.line()) == entry  # written back as read
    assert parse_entry("Małgorzata Szczepańska") == Entry("Małgorzata Szczepańska")
    assert parse_entry("Re:Invent").term == "Re:Invent"  # a colon inside a term stays
    assert parse_entry("C# : see sharp").term == "C#"  # "#" without a space before it is no note
    assert parse_entry("   # a comment") is None and parse_entry("") is None


@pytest.mark.parametrize(
    "line, says",
    [
        (": post gres", "the term is empty"),
        ("x" * 61, "61 characters long"),
        ("a b c d e f: six words", "6 words"),
        ("Siobhan\x07: shiv awn", "control character (U+0007)"),
        ("kubectl: cube control,, cube cuttle", "empty spoken form"),
        ("--- : dash", "no letter or digit"),
    ],
)
def test_a_bad_line_is_refused_with_its_number_and_what_is_wrong(line, says):
    lines = ["# my terms", "Grafana", line, "Siobhan: shiv awn"]
    with pytest.raises(VocabularyError) as refused:
        parse_vocabulary(lines, "terms.txt")
    message = str(refused.value)
    assert message.startswith("terms.txt, line 3: ") and says in message
    assert "\n" not in message


def test_a_term_given_twice_names_both_lines():
    with pytest.raises(VocabularyError, match=r"terms.txt, line 4: 'GRAFANA' is already on line 2"):
        parse_vocabulary(["", "Grafana", "Siobhan", "GRAFANA: graph on a"], "terms.txt")


def test_a_session_file_adds_to_the_users_own_without_overriding_it():
    own = parse_vocabulary(["Grafana: graph on a"])
    session = parse_vocabulary(["grafana", "Siobhan"])
    merged = own.merged(session)
    assert [e.term for e in merged] == ["Grafana", "Siobhan"]
    assert merged.find("GRAFANA").spoken == ("graph on a",)
