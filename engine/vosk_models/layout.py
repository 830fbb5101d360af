"""Is this folder a Vosk model, and which models are installed: the one answer everybody uses.

The catalogue, the installer, the recognizer and auto-select all ask here, so the
Settings panel, ``livecap models list`` and the captions never disagree about which
models exist. Standard library only: the recognizer imports this without pulling in
the download machinery.
"""

from __future__ import annotations

import os
from pathlib import Path


def model_problems(folder: str | os.PathLike[str]) -> list[str]:
    """What keeps ``folder`` from loading as a Vosk model; empty when it looks loadable.

    Mirrors the checks in vosk-api ``src/model.cc`` (``Model::Model`` and
    ``ReadDataFiles``), so a folder that passes here does not die inside the
    native library with a Kaldi error the user cannot act on (some builds abort
    the whole process instead):

    * layout v2: ``am/final.mdl`` + ``conf/model.conf``; v1 (older models):
      ``final.mdl`` + ``mfcc.conf`` at the top level;
    * a feature config: ``mfcc.conf`` or ``fbank.conf`` (in ``conf/`` for v2);
    * a decoding graph: ``HCLG.fst``, or ``HCLr.fst`` + ``Gr.fst`` +
      ``disambig_tid.int`` for the small "lookahead" models (in ``graph/`` for v2):
      libvosk loads all three when there is no ``HCLG.fst``.
    """
    root = Path(folder)
    if not root.is_dir():
        return [f"{root} is not a folder"]
    if (root / "am" / "final.mdl").is_file() and (root / "conf" / "model.conf").is_file():
        conf, graph = root / "conf", root / "graph"
    elif (root / "final.mdl").is_file() and (root / "mfcc.conf").is_file():
        conf, graph = root, root
    else:
        return ["am/final.mdl and conf/model.conf (or, older layout, final.mdl and mfcc.conf)"]
    problems = []
    if not ((conf / "mfcc.conf").is_file() or (conf / "fbank.conf").is_file()):
        problems.append(f"{_rel(conf / 'mfcc.conf', root)} (or fbank.conf)")
    lookahead = [graph / "HCLr.fst", graph / "Gr.fst", graph / "disambig_tid.int"]
    if not ((graph / "HCLG.fst").is_file() or all(p.is_file() for p in lookahead)):
        problems.append(
            f"{_rel(graph / 'HCLG.fst', root)} (or {', '.join(_rel(p, root) for p in lookahead)})"
        )
    return problems


def is_vosk_model(folder: str | os.PathLike[str]) -> bool:
    return not model_problems(folder)


def installed_model_folders(models_dir: str | os.PathLike[str]) -> list[Path]:
    """The loadable model folders in ``models_dir``, sorted by name.

    Hidden entries are never models: they are the installer's temporary folders
    (``.NAME.tmp-…``, ``.NAME.old-…``), a removal in progress (``.NAME.removing-…``)
    and lock files, any of which may hold a complete model for a moment.
    """
    try:
        children = sorted(Path(models_dir).iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [child for child in children if not child.name.startswith(".") and is_vosk_model(child)]


def incomplete_model_folders(models_dir: str | os.PathLike[str]) -> list[tuple[Path, list[str]]]:
    """The folders in ``models_dir`` that are not loadable models, with what is wrong with each
    ("missing graph/HCLG.fst (or …)"), sorted by name: a hand-unpacked model missing a file, or
    one unpacked a level too deep. Hidden entries are skipped as in ``installed_model_folders``;
    so are plain files (an archive left there)."""
    try:
        children = sorted(Path(models_dir).iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for child in children:
        if child.name.startswith(".") or not child.is_dir():
            continue
        if (child / "model.bin").is_file():  # a Whisper model the user unpacked: not a Vosk one
            continue
        problems = model_problems(child)
        if not problems:
            continue
        inner = nested_model(child)
        if inner is not None:
            found.append((child, [f"the model is one level down, in {inner.name}/: move it up"]))
        else:
            found.append((child, [f"missing {problem}" for problem in problems]))
    return found


def nested_model(folder: str | os.PathLike[str]) -> Path | None:
    """A loadable model one level inside ``folder`` (an archive unpacked into a folder of its own)."""
    try:
        children = sorted(Path(folder).iterdir())
    except OSError:
        return None
    return next((child for child in children if child.is_dir() and is_vosk_model(child)), None)


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()
