"""The live-against-file benchmark, for real on a short reading: it runs both paths and reports
each figure the targets are judged on (the figures themselves are the benchmark's, not a test's)."""

import json
import shutil

import pytest

from engine.evaluation import live_vs_file
from engine.evaluation.corpus import dev_corpus

DEV = dev_corpus()


@pytest.mark.slow
@pytest.mark.needs_espeak
@pytest.mark.needs_corpus
@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng reads the benchmark's text")
@pytest.mark.skipif(not (DEV / "chitchat.txt").exists(), reason="shared dev corpus not present")
def test_one_voice_reports_file_and_live_figures(capsys):
    argv = ["--voice", "espeak-ng", "--excerpts", "1", "--min-words", "20", "--max-words", "40", "--fast"]
    assert live_vs_file.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    voice = result["voices"]["espeak-ng"]
    assert voice["reference_words"] >= 20
    assert 0 <= voice["file_wer"] < 0.6 and 0 <= voice["live_wer"] < 0.6  # both heard the reading
    assert voice["wer_ratio"] == pytest.approx(voice["live_wer"] / voice["file_wer"], abs=1e-3)
    assert voice["marks_gap"] == pytest.approx(
        100 * (voice["file_marks_f1"] - voice["live_marks_f1"]), abs=0.1
    )
    assert voice["settled_marks_withdrawn"] == 0
    # unpaced: the marks and words are judged, latency and CPU are not
    assert set(voice["targets_met"]) == {"wer_ratio", "marks_gap"}
    assert result["whisper_options"]["settle_after"] >= 1


def test_a_voice_whose_engine_is_missing_is_skipped_with_the_line_that_installs_it(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    out = live_vs_file.one_voice("flite", [], None, None, True, lambda msg: None)
    assert "apt-get install flite" in out["skipped"]
