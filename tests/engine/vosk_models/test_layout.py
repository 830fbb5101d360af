"""One answer to "is this folder a Vosk model?" and "which models are installed?": the catalogue
(Settings panel, ``livecap models list``) and the recognizer side (captions, auto-select) agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.recognizers import RecognizerError
from engine.recognizers.select import open_recognizer
from engine.recognizers.vosk_rec import check_vosk_model
from engine.vosk_models import catalogue, layout

V2 = ["am/final.mdl", "conf/model.conf"]
# Each folder's files, and whether libvosk (vosk-api src/model.cc) can load it.
FOLDERS = {
    "v2-mfcc-hclg": (V2 + ["conf/mfcc.conf", "graph/HCLG.fst"], True),
    "v2-fbank-hclg": (V2 + ["conf/fbank.conf", "graph/HCLG.fst"], True),
    "v2-lookahead": (
        V2 + ["conf/mfcc.conf", "graph/HCLr.fst", "graph/Gr.fst", "graph/disambig_tid.int"],
        True,
    ),
    "v2-hclr-without-gr": (V2 + ["conf/mfcc.conf", "graph/HCLr.fst", "graph/disambig_tid.int"], False),
    "v2-no-features": (V2 + ["graph/HCLG.fst"], False),
    "v2-no-model-conf": (["am/final.mdl", "conf/mfcc.conf", "graph/HCLG.fst"], False),
    "v1-hclg": (["final.mdl", "mfcc.conf", "HCLG.fst"], True),
    "v1-graph-in-subfolder": (["final.mdl", "mfcc.conf", "graph/HCLG.fst"], False),
    "half-downloaded": (["am/final.mdl"], False),
    ".vosk-model-small-en-us-0.15.removing-0123abcd": (V2 + ["conf/mfcc.conf", "graph/HCLG.fst"], False),
    ".vosk-model-small-en-us-0.15.tmp-4567cdef": (V2 + ["conf/mfcc.conf", "graph/HCLG.fst"], False),
}


def write(root: Path, names: list[str]) -> Path:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"x")
    return root


def recognizer_accepts(folder: Path) -> bool:
    try:
        check_vosk_model(folder)
    except RecognizerError:
        return False
    return True


@pytest.fixture
def models(tmp_path) -> Path:
    root = tmp_path / "models"
    for name, (files, _) in FOLDERS.items():
        write(root / name, files)
    (root / ".vosk-model-small-en-us-0.15.lock").write_bytes(b"")
    (root / "notes.txt").write_text("not a model")
    return root


def test_catalogue_and_recognizer_give_the_same_answer_for_every_folder(models):
    loadable = sorted(name for name, (_, ok) in FOLDERS.items() if ok)
    assert [m.name for m in catalogue.installed_models(models)] == loadable
    assert [p.name for p in layout.installed_model_folders(models)] == loadable
    visible = [p for p in sorted(models.iterdir()) if not p.name.startswith(".")]
    assert [p.name for p in visible if recognizer_accepts(p)] == loadable
    assert [p.name for p in visible if layout.is_vosk_model(p)] == loadable


def test_fbank_features_are_a_model_on_both_sides(tmp_path):
    folder = write(tmp_path / "fbank", FOLDERS["v2-fbank-hclg"][0])
    assert check_vosk_model(folder) == folder
    assert [m.name for m in catalogue.installed_models(tmp_path)] == ["fbank"]
    bare = write(tmp_path / "bare", FOLDERS["v2-no-features"][0])
    assert layout.model_problems(bare) == ["conf/mfcc.conf (or fbank.conf)"]
    with pytest.raises(RecognizerError, match=r"not a Vosk model; it lacks conf/mfcc.conf \(or fbank.conf\)"):
        check_vosk_model(bare)


def test_a_lookahead_graph_needs_gr_fst_on_both_sides(tmp_path):
    folder = write(tmp_path / "no-gr", FOLDERS["v2-hclr-without-gr"][0])
    with pytest.raises(RecognizerError, match=r"graph/Gr\.fst"):
        check_vosk_model(folder)
    assert "graph/Gr.fst" in layout.model_problems(folder)[0]
    assert catalogue.installed_models(tmp_path) == []
    (folder / "graph" / "Gr.fst").write_bytes(b"x")
    assert check_vosk_model(folder) == folder and layout.is_vosk_model(folder)


def test_auto_select_never_picks_a_model_being_removed(tmp_path):
    # remove_model renames the folder to a hidden name before deleting it: a complete model for a moment.
    models = tmp_path / "models"
    write(models / ".vosk-model-x.removing-0123abcd", FOLDERS["v2-mfcc-hclg"][0])
    assert layout.installed_model_folders(models) == [] and catalogue.installed_models(models) == []
    recognizer, notice, _ = open_recognizer(None, None, models_dir=models)
    assert recognizer.name == "whisper" and notice == ""  # no Vosk model: the embedded Whisper
    with pytest.raises(RecognizerError, match="No Vosk model installed"):
        open_recognizer("vosk", None, models_dir=models)


def test_a_removal_in_progress_is_skipped_beside_a_real_model(tmp_path):
    models = tmp_path / "models"
    write(models / ".a-model.removing-0123abcd", FOLDERS["v2-mfcc-hclg"][0])  # sorts first
    write(models / "b-model", FOLDERS["v2-mfcc-hclg"][0])
    assert layout.installed_model_folders(models) == [models / "b-model"]
    with pytest.raises(RecognizerError, match="installed: b-model"):
        open_recognizer("vosk", "missing", models_dir=models)


# -- incomplete folders are listed, never picked --------------------------------
def test_an_incomplete_hand_unpacked_folder_is_listed_with_what_it_lacks(tmp_path):
    models = tmp_path / "models"
    no_graph = write(models / "vosk-model-small-en-us-0.15", V2 + ["conf/mfcc.conf"])
    write(models / "mine", V2 + ["conf/mfcc.conf", "graph/HCLG.fst"])
    write(models / "outer" / "inner", V2 + ["conf/mfcc.conf", "graph/HCLG.fst"])
    write(models / ".x.tmp-0123abcd", V2)  # the installer's: never listed
    (models / "stray.zip").write_bytes(b"x")
    listed = {m.name: m for m in catalogue.incomplete_models(models)}
    assert sorted(listed) == ["outer", "vosk-model-small-en-us-0.15"]
    small = listed["vosk-model-small-en-us-0.15"]
    assert not small.complete and small.path == no_graph and small.entry is not None
    assert small.problems[0].startswith("missing graph/HCLG.fst")
    assert listed["outer"].problems == ("the model is one level down, in inner/: move it up",)
    assert [m.name for m in catalogue.installed_models(models)] == ["mine"]
    assert all(m.complete for m in catalogue.installed_models(models))


def test_auto_select_skips_an_incomplete_folder_and_says_so(tmp_path):
    models = tmp_path / "models"
    write(models / "a-incomplete", V2 + ["conf/mfcc.conf"])  # sorts first
    recognizer, notice, _ = open_recognizer(None, None, models_dir=models)
    assert recognizer.name == "whisper" and notice.endswith("using Whisper")
    assert "a-incomplete is incomplete: missing graph/HCLG.fst" in notice and "livecap models list" in notice
    with pytest.raises(RecognizerError, match="a-incomplete is incomplete"):
        open_recognizer("vosk", None, models_dir=models)
