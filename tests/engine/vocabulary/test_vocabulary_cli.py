"""``livecap vocabulary``, ``--vocabulary`` and the user's file, through the real command line
(in this process: ``main``), on the test's own config folder."""

import pytest

from engine.cli.main import main
from engine.vocabulary import read_vocabulary, user_vocabulary_path

AGENDA = """Platform sync, Monday 9:00
Attendees: Siobhan O'Neill, Oluwaseun Adeyemi, Priya Raghunathan
1. The billing database moves to PostgreSQL before Q3.
2. Deploy with kubectl; the Grafana dashboards show the errors.
Please bring the notes from last week.
"""


@pytest.fixture(autouse=True)
def own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config" / "livecap"


def test_add_remove_and_list_keep_every_other_line(own_config, capsys):
    path = user_vocabulary_path()
    own_config.mkdir(parents=True)
    path.write_text(
        "# names from the Lisbon office\nJoão: jo ow\n\nGrafana  # dashboards\n", encoding="utf-8"
    )
    assert main(["vocabulary", "add", "PostgreSQL: post gres Q L, postgres"]) == 0
    assert main(["vocabulary", "remove", "JOÃO"]) == 0
    assert path.read_text(encoding="utf-8") == (
        "# names from the Lisbon office\n\nGrafana  # dashboards\nPostgreSQL: post gres Q L, postgres\n"
    )
    assert sorted(p.name for p in own_config.iterdir()) == ["vocabulary.txt"]  # no temporary file left
    capsys.readouterr()
    assert main(["vocabulary", "list"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Grafana  # dashboards",
        "PostgreSQL: post gres Q L, postgres",
    ]


def test_bad_input_is_one_line_and_exit_2_and_changes_nothing(own_config, capsys):
    assert main(["vocabulary", "add", "Grafana"]) == 0
    before = user_vocabulary_path().read_bytes()
    for argv, says in [
        (["vocabulary", "add", ": graph"], "the term is empty"),
        (["vocabulary", "add", "grafana: graph on a"], "'Grafana' is already in"),
        (["vocabulary", "remove", "Kibana"], "'Kibana' is not in"),
    ]:
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1
    assert user_vocabulary_path().read_bytes() == before


def test_import_proposes_the_names_of_an_agenda_and_adds_them_only_when_told(tmp_path, capsys):
    agenda = tmp_path / "agenda.txt"
    agenda.write_text(AGENDA, encoding="utf-8")
    assert main(["vocabulary", "import", str(agenda)]) == 0
    proposed = capsys.readouterr().out.splitlines()
    for name in (
        "Siobhan O'Neill",
        "Oluwaseun Adeyemi",
        "Priya Raghunathan",
        "PostgreSQL",
        "Q3",
        "kubectl",
        "Grafana",
    ):
        assert name in proposed
    for plain in ("Platform", "Monday", "Attendees", "Deploy", "Please", "billing", "notes"):
        assert plain not in proposed
    assert not user_vocabulary_path().exists()  # not a terminal, no --yes: nothing added
    assert main(["vocabulary", "import", str(agenda), "--yes"]) == 0
    assert [e.term for e in read_vocabulary(user_vocabulary_path())] == proposed


def test_a_bad_vocabulary_file_stops_transcribe_before_any_audio_is_read(tmp_path, capsys):
    terms = tmp_path / "terms.txt"
    terms.write_text("Grafana\nSiobhan: shiv awn\nkubectl: cube control,\n", encoding="utf-8")
    missing_audio = tmp_path / "never-read.wav"
    assert main(["transcribe", str(missing_audio), "--vocabulary", str(terms)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"livecap: {terms}, line 3: an empty spoken form (two commas, or one at the end); remove it\n"
    )


def test_a_bad_vocabulary_file_stops_listen_before_its_source_opens(tmp_path, capsys):
    terms = tmp_path / "terms.txt"
    terms.write_text("Grafana\n: graph on a\n", encoding="utf-8")
    not_audio = tmp_path / "notes.wav"
    not_audio.write_text("not audio", encoding="utf-8")
    assert main(["listen", "--source", str(not_audio), "--vocabulary", str(terms)]) == 2
    assert capsys.readouterr().err.startswith(f"livecap: {terms}, line 2: the term is empty")
