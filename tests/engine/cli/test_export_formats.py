"""``transcribe`` and ``recover`` write every format of the registry, Markdown notes included, by
the one shared writer; in-process, journals and transcripts built here, the tiny ONNX model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli.common import CliError
from engine.cli.main import main
from engine.cli.transcribe import output_paths, pick_format, write_transcript
from engine.transcript.export import render
from engine.transcript.journal import read_journal
from engine.transcript.transcript import Transcript, TranscriptWord


def test_transcribe_writes_markdown_named_by_the_format_or_the_extension(tmp_path):
    assert pick_format(None, str(tmp_path / "talk.MD")) == "md"
    assert pick_format("md", str(tmp_path / "talk.txt")) == "md"
    assert output_paths([tmp_path / "talk.wav"], "md", None) == [tmp_path / "talk.md"]
    t = Transcript([TranscriptWord("hello", 0.0, 0.4), TranscriptWord("there", 0.5, 0.9)])
    target = tmp_path / "talk.md"
    write_transcript(t, "md", target, "talk.wav", overwrite=False)
    assert (
        target.read_text(encoding="utf-8") == render(t, "md") == "# Transcript\n\n**[0:00]** hello there.\n"
    )
    target.write_text("my notes\n")
    with pytest.raises(CliError, match=f"{target} already exists; pass --overwrite"):
        write_transcript(t, "md", target, "talk.wav", overwrite=False)
    assert target.read_text() == "my notes\n"  # never replaced unasked
    with pytest.raises(CliError, match="talk.wav: This transcript has no word timings, which SRT needs"):
        write_transcript(Transcript([TranscriptWord("hi")]), "srt", tmp_path / "t.srt", "talk.wav", False)
    assert not (tmp_path / "t.srt").exists()


def write_journal(folder: Path, name: str, words: list[str], timed: bool) -> Path:
    """A crashed session's journal, every word settled as the captions showed it."""
    rows = [{"t": "header", "version": 1, "started": "2026-01-01T12:00:00+00:00", "source": "mic"}]
    for k, text in enumerate(words):
        times = {"start": k * 0.5, "end": k * 0.5 + 0.4} if timed else {}
        rows.append(
            {"t": "word", "position": k, "text": text, "form": text, "mark": "none", "case": "lower",
             "confidence": 1.0, **times}
        )  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_recover_saves_markdown_and_a_format_needing_times_gives_way_only_where_they_lack(
    tmp_path, tiny_model_dir, capsys
):
    folder = tmp_path / "journals"
    timed = write_journal(folder, "session-20260101-120000.jsonl", ["hello", "there"], timed=True)
    untimed = write_journal(folder, "session-20260101-130000.jsonl", ["good", "night"], timed=False)
    out = tmp_path / "out"
    common = ["--journal-dir", str(folder), "--all", "-o", str(out), "--model-dir", str(tiny_model_dir)]
    assert main(["recover", *common, "--format", "md"]) == 0
    for journal in (timed, untimed):  # Markdown needs no times: both are notes
        saved = (out / f"recovered-{journal.stem}.md").read_text(encoding="utf-8")
        assert saved == render(read_journal(journal).transcript, "md"), saved
    assert "**[0:00]** hello there." in (out / f"recovered-{timed.stem}.md").read_text()
    capsys.readouterr()
    assert main(["recover", *common, "--format", "srt"]) == 0
    assert (out / f"recovered-{timed.stem}.srt").exists()
    assert (out / f"recovered-{untimed.stem}.txt").read_text().split() == ["good", "night."]
    assert "saving as txt instead of srt" in capsys.readouterr().err
    assert sorted(p.suffix for p in out.iterdir()) == [".md", ".md", ".srt", ".txt"]
