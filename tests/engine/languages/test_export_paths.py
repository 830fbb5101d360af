"""Every way out of a journal keeps its language: ``livecap recover`` and ``livecap history export``
of a session that captioned German speech as English (Whisper base's translation) give a JSON that
says the language spoken and that the words are a translation, and a WebVTT whose NOTE says so.
A session told "auto" exports the language it detected."""

from __future__ import annotations

import json

import pytest

from engine.cli.main import main
from engine.events import Appended, Settled
from engine.transcript.journal import JournalWriter
from engine.words import Word

WORDS = ["Good", "morning.", "The", "weather", "is", "nice", "today."]


def header(language: str | None, translated: bool = True) -> dict:
    """A journal's header as the session builder writes it (``engine.session.build``)."""
    return {
        "recognizer": "whisper-base",
        "model": "whisper-base",
        "language": language,
        **({"translated": True} if translated else {}),
        "punctuation_model": "tiny",
        "source": "mic",
    }


def write_journal(folder, language: str | None, detected: str | None = None, translated: bool = True):
    """A closed journal of ``WORDS``, written by the real ``JournalWriter`` as a session settles
    them; ``detected``: the language a session told "auto" recorded."""
    writer = JournalWriter.create(folder, header=header(language, translated), fsync_interval=3600)
    if detected is not None:
        writer.record_language(detected, 0.93)
    for k, token in enumerate(WORDS):
        form = token.rstrip(".")
        mark = "period" if token.endswith(".") else "none"
        case = "capitalized" if form[:1].isupper() else "lower"
        writer.apply(
            [Appended(k, Word(form.lower(), k * 0.5, k * 0.5 + 0.4)), Settled(k, mark, case, 1, form)]
        )
    writer.close()
    return writer.path


@pytest.fixture
def journal_dir(data_dir):
    from engine.files import paths

    folder = paths.journal_dir()
    folder.mkdir(parents=True)
    return folder


@pytest.mark.parametrize("language, detected", [("de", None), (None, "de")], ids=["german", "auto"])
def test_recover_keeps_the_language_and_the_translation(
    journal_dir, tmp_path, tiny_model_dir, language, detected
):
    path = write_journal(journal_dir, language, detected)
    out = tmp_path / "out"
    for fmt in ("json", "vtt"):
        args = ["recover", path.stem, "--format", fmt, "-o", str(out), "--model-dir", str(tiny_model_dir)]
        assert main([*args, "--journal-dir", str(journal_dir)]) == 0
    data = json.loads((out / f"recovered-{path.stem}.json").read_text(encoding="utf-8"))
    assert data["language"] == "de" and data["translated"] is True
    assert [w["word"] for w in data["words"]] == [t.rstrip(".").lower() for t in WORDS]
    vtt = (out / f"recovered-{path.stem}.vtt").read_text(encoding="utf-8")
    assert "NOTE\nEnglish translation of German speech" in vtt


@pytest.mark.parametrize("language, detected", [("de", None), (None, "de")], ids=["german", "auto"])
def test_history_export_keeps_the_language_and_the_translation(
    journal_dir, tmp_path, capsys, language, detected
):
    path = write_journal(journal_dir, language, detected)
    target = tmp_path / "session.json"
    assert main(["history", "export", path.stem, "-o", str(target)]) == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["language"] == "de" and data["translated"] is True
    assert len(data["words"]) == len(WORDS)
    assert main(["history", "export", path.stem, "-o", str(tmp_path / "session.vtt")]) == 0
    assert "NOTE\nEnglish translation of German speech" in (tmp_path / "session.vtt").read_text(
        encoding="utf-8"
    )


def test_german_words_not_translated_export_as_german(journal_dir, tmp_path, capsys):
    path = write_journal(journal_dir, "de", translated=False)
    target = tmp_path / "session.json"
    assert main(["history", "export", path.stem, "-o", str(target)]) == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["language"] == "de" and data["translated"] is False
    assert main(["history", "export", path.stem, "-o", str(tmp_path / "session.vtt")]) == 0
    assert "NOTE" not in (tmp_path / "session.vtt").read_text(encoding="utf-8")
