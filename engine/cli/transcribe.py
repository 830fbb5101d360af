"""``livecap transcribe FILE...``: audio files to punctuated text in any export format
(``engine.transcript.formats``: TXT, subtitles, JSON, notes).

Everything that can be checked is checked before any model is loaded, so a
mistake fails in a second, not after an hour of recognizing: the output format,
that every output folder exists and takes a new file, and every input file.
A bad input does not stop the others: each one is named on a line of its own,
the good ones are transcribed, and the exit status says that not all went well.
Marks come from the offline decoder, which sees the whole text: better than live
captions.

A transcript never replaces a file that is already there unless ``--overwrite``
says so (the file may be the user's notes of the same name), and nothing is
written when no word was recognized: an empty file would only hide that.
"""

from __future__ import annotations

import os
import secrets
import sys
from pathlib import Path

from engine.cli.common import (
    CliError,
    describe_recognizer,
    load_model,
    make_recognizer,
    recognition_choice,
    warn,
)
from engine.recognizers.kinds import find_kind
from engine.transcript.formats import DEFAULT, FORMATS, format_from_path

BAD_INPUT = 2  # the exit status when some files could not be transcribed (as for any bad input)
INTERRUPTED = 130


def pick_format(fmt: str | None, output: str | None) -> str:
    """``--format``, else the one ``-o``'s extension names, else the default (txt); an extension
    that names no format is refused rather than written as TXT under a misleading name."""
    if fmt is not None:
        return fmt
    if output in (None, "-") or Path(output).is_dir() or not Path(output).suffix:
        return DEFAULT.name
    named = format_from_path(output)
    if named is None:
        known = ", ".join(f.extension for f in FORMATS.values())
        raise CliError(
            f"-o {output}: unknown extension {Path(output).suffix.lower()}; end the name in one of "
            f"{known}, or choose the format with --format"
        )
    return named


def output_paths(
    files: list[Path], fmt: str, output: str | None, several: bool | None = None
) -> list[Path | None]:
    """Where each transcript goes; None means stdout. ``several``: whether the command was given
    more than one file (default: more than one in ``files``), which makes ``-o`` a folder."""
    several = len(files) > 1 if several is None else several
    if output == "-":
        return [None] * len(files)
    if output is None:
        targets = [f.with_suffix(FORMATS[fmt].extension) for f in files]
    else:
        out = Path(output)
        if not several and not out.is_dir():
            check_folder(out.parent, f"-o {output}")
            targets = [out]
        elif out.is_dir():
            check_folder(out, f"-o {output}")
            targets = [out / f.with_suffix(FORMATS[fmt].extension).name for f in files]
        else:
            raise CliError(
                f"-o {output}: with several input files, -o must be an existing folder (or - for stdout)"
            )
    for source, target in zip(files, targets):
        if target.resolve() == source.resolve():
            raise CliError(f"{source}: the transcript would overwrite the audio file; pass -o")
    first_source: dict[Path, Path] = {}
    for source, target in zip(files, targets):
        earlier = first_source.setdefault(target.resolve(), source)
        if earlier is not source:
            # --overwrite is for files that were there before, never for this run's own output.
            raise CliError(
                f"{source} would overwrite {target}, the transcript of {earlier}; "
                f"transcribe {source.name} on its own with -o another name"
            )
    return targets


def folder_problem(folder: Path, way_out: str) -> str | None:
    """Why no transcript can be written in ``folder``, ending in what to do (``way_out``, e.g.
    "choose another -o"), or None. A file is really created and removed there: permissions, a
    read-only filesystem or a pseudo-filesystem such as /sys all answer that, where asking for
    permission bits would not (root passes every such test)."""
    if not folder.exists():
        return f"the folder {folder} does not exist; create it (mkdir -p {folder}) or {way_out}"
    if not folder.is_dir():
        return f"{folder} is not a folder; {way_out}"
    probe = folder / f".livecap-write-test.{secrets.token_hex(4)}.tmp"
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        return f"cannot create files in {folder} ({exc.strerror or exc}); {way_out}"
    try:
        probe.unlink()
    except OSError:
        pass
    return None


def check_folder(folder: Path, what: str) -> None:
    problem = folder_problem(folder, "choose another -o (- for stdout)")
    if problem is not None:
        raise CliError(f"{what}: {problem}")


def output_problem(source: Path, target: Path | None, overwrite: bool) -> str | None:
    """Why ``source``'s transcript cannot go to ``target`` (next to ``source``, or in the folder
    ``output_paths`` checked), or None."""
    if target is None:
        return None
    if target.is_dir():
        return f"{target} is a folder; pass -o another name"
    if not overwrite and (target.exists() or target.is_symlink()):
        return already_exists(target)
    problem = folder_problem(target.parent, "pass -o to write it elsewhere")
    if problem is not None:
        return f"{source}: cannot write {target}: {problem}"
    return None


def already_exists(target: Path) -> str:
    return f"{target} already exists; pass --overwrite to replace it, or -o another name"


def refuse_to_overwrite(target: Path | None, overwrite: bool) -> None:
    """One line naming the file and the flag when ``target`` exists and may not be replaced."""
    if target is not None and not overwrite and (target.exists() or target.is_symlink()):
        raise CliError(already_exists(target))


def check_inputs(files: list[Path]) -> tuple[list[tuple[Path, float]], int]:
    """(the readable files with their lengths, how many were not); each bad one is said on its own
    line, each cut-short one warned about (every frame there is good, so it is used)."""
    from engine.audio.base import AudioError
    from engine.audio.file_source import audio_duration, truncation_warning

    good, bad = [], 0
    for f in files:
        try:
            seconds = audio_duration(f)
            note = truncation_warning(f)
        except AudioError as exc:
            warn(str(exc))
            bad += 1
            continue
        if note:
            warn(f"{f}: {note}")
        good.append((f, seconds))
    return good, bad


def cmd_transcribe(args) -> int:
    from engine.audio.base import AudioError
    from engine.cli.progress import ProgressBar
    from engine.recognizers import RecognizerError
    from engine.session.batch import Interrupted, transcribe_file

    choice = recognition_choice(args)  # a bad --language before any file is read
    kind, options = choice.request(live=False)
    files = [Path(f) for f in args.files]
    fmt = pick_format(args.format, args.output)
    if args.output not in (None, "-"):  # the folder all transcripts go to, before anything else
        output_paths(files[:1], fmt, args.output, several=len(files) > 1)
    good, failed = check_inputs(files)
    targets = output_paths([f for f, _ in good], fmt, args.output, several=len(files) > 1)
    jobs = []
    for (path, seconds), target in zip(good, targets):
        problem = output_problem(path, target, args.overwrite)
        if problem is None:
            jobs.append((path, seconds, target))
        else:
            warn(problem)
            failed += 1
    if not jobs:
        return BAD_INPUT
    recognizer = make_recognizer(
        kind, args.model, live=False, verbose=getattr(args, "verbose", False), options=options
    )
    model = load_model(args.model_dir, args.threads)
    plan = file_plan(choice, recognizer)
    written, english = plan.marks == "recognizer", plan.english
    detects = recognizer.detects_language
    translating = plan.translating
    if find_kind(recognizer.name).language == "multilingual":
        print(f"livecap: {describe_recognizer(recognizer.name, plan.language, translating)}", file=sys.stderr)
    for path, seconds, target in jobs:
        bar = ProgressBar(path.name)

        def progress(stage: str, done: float, total: float, bar=bar, name=path.name) -> None:
            bar.update(done, total, f"{stage} {name}")

        interrupted = None
        try:
            # Ctrl-C while recognizing stops at the next chunk; from the last chunk on, the file is
            # punctuated first (a short stage beside the recognizing): either way it raises
            # Interrupted with the words heard.
            transcript = transcribe_file(
                path, recognizer, model, progress, written_marks=written, vocabulary=plan.vocabulary
            )
        except Interrupted as stop:  # Ctrl-C: write what was heard, then stop
            interrupted, transcript = stop, stop.transcript
        except AudioError as exc:  # the file changed since it was checked: the others still go
            warn(str(exc))
            failed += 1
            continue
        except RecognizerError as exc:
            raise CliError(str(exc)) from None
        finally:
            bar.finish()
        if detects and recognizer.language is not None:  # told from this file's first speech
            line = describe_recognizer(recognizer.name, recognizer.language, translating, detected=True)
            print(f"livecap: {path.name}: {line}", file=sys.stderr)
        where = "" if target is None else f" in {target}"
        if interrupted is not None and interrupted.complete:
            warn(f"{path}: interrupted while punctuating; its {len(transcript.words)} words were kept{where}")
        elif interrupted is not None:
            warn(
                f"{path}: interrupted: keeping the {len(transcript.words)} words of the first "
                f"{interrupted.seconds:.1f} s{where}"
            )
        elif not transcript.words:
            not_written = "" if target is None else f"; {target} was not written"
            warn(f"{path}: no speech was recognized in {seconds:.1f} s of audio{not_written}")
        if transcript.words:
            write_transcript(
                transcript,
                fmt,
                target,
                path,
                args.overwrite,
                end_sentence=english or translating,
                language=recognizer.language,
                translated=translating,
            )
            if target is not None:
                print(f"{path} -> {target} ({len(transcript.words)} words)", file=sys.stderr)
        if interrupted is not None:
            return INTERRUPTED
    if failed:
        warn(f"{len(files) - failed} of {len(files)} files transcribed; the others are named above")
        return BAD_INPUT
    return 0


def file_plan(choice, recognizer):
    """The recognition plan for whole files (``plan.resolve_plan``, not live), its notices said
    once: the language heard where the punctuation model (English) cannot mark it.

    A whole file keeps the recognizer kind's default marks (``marks_by_default``), not the live
    one, so the plan is resolved with no punctuation model: on Whisper's words of a whole file
    (decoded once per window, not live) the offline decoder with its marks folded in is not level
    with them on every file (docs/QUALITY.md)."""
    from engine.session.plan import resolve_plan

    plan = resolve_plan(choice, recognizer, live=False)
    for notice in plan.notices:
        warn(notice)
    return plan


def whose_marks_in_files(recognizer, marks: str) -> tuple[bool, bool]:
    """(whether the recognizer's words keep the marks it wrote, or pass unmarked, instead of
    getting the punctuation model's; whether its words are English): ``file_plan``'s."""
    from engine.session.plan import RecognitionChoice

    plan = file_plan(RecognitionChoice(marks=marks), recognizer)
    return plan.marks == "recognizer", plan.english


def write_transcript(
    transcript,
    fmt: str,
    target: Path | None,
    who: Path | str,
    overwrite: bool,
    *,
    end_sentence: bool = True,
    names=None,
    language: str | None = None,
    translated: bool = False,
) -> None:
    """The command line's one way to write a transcript (``transcribe``, ``recover``, ``history
    export``): to ``target`` by ``write_export`` (None: stdout), never over a file that appeared
    since the checks unless ``overwrite``; a problem is one line, naming ``who`` (the audio file,
    the session) where it is the transcript's. ``end_sentence``, ``names``, ``language`` and
    ``translated``: as for ``render``."""
    from engine.transcript.export import ExportError, render, write_export

    about = {"end_sentence": end_sentence, "names": names, "language": language, "translated": translated}
    try:
        if target is None:
            sys.stdout.write(render(transcript, fmt, **about))
            sys.stdout.flush()
        else:
            write_export(transcript, fmt, target, overwrite=overwrite, **about)
    except ExportError as exc:
        raise CliError(f"{who}: {exc}") from None
    except FileExistsError:  # it appeared since the checks
        raise CliError(already_exists(target)) from None
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
