"""``livecap transcribe FILE...``: audio files to punctuated TXT, SRT, VTT or JSON.

Every input file is checked before any model is loaded, so a typo in the
fifth name fails in a second, not after four files' worth of work. Marks come
from the offline decoder, which sees the whole text: better than live captions.

A transcript never replaces a file that is already there unless ``--overwrite``
says so (the file may be the user's notes of the same name), and nothing is
written when no word was recognized: an empty file would only hide that.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.cli.common import CliError, load_model, make_recognizer, warn

EXTENSIONS = {"txt": ".txt", "srt": ".srt", "vtt": ".vtt", "json": ".json"}


def output_paths(files: list[Path], fmt: str, output: str | None) -> list[Path | None]:
    """Where each transcript goes; None means stdout."""
    if output == "-":
        return [None] * len(files)
    if output is None:
        targets = [f.with_suffix(EXTENSIONS[fmt]) for f in files]
    else:
        out = Path(output)
        if len(files) == 1 and not out.is_dir():
            targets = [out]
        elif out.is_dir():
            targets = [out / f.with_suffix(EXTENSIONS[fmt]).name for f in files]
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


def refuse_to_overwrite(target: Path | None, overwrite: bool) -> None:
    """One line naming the file and the flag when ``target`` exists and may not be replaced."""
    if target is not None and not overwrite and (target.exists() or target.is_symlink()):
        raise CliError(f"{target} already exists; pass --overwrite to replace it, or -o another name")


def pick_format(fmt: str | None, output: str | None) -> str:
    if fmt is not None:
        return fmt
    if output not in (None, "-"):
        from engine.transcript.export import format_from_path

        guessed = format_from_path(output)
        if guessed is not None:
            return guessed
    return "txt"


def cmd_transcribe(args) -> int:
    from engine.audio.base import AudioError
    from engine.audio.file_source import audio_duration, truncation_warning
    from engine.cli.progress import ProgressBar
    from engine.recognizers import RecognizerError
    from engine.session.batch import Interrupted, transcribe_file

    files = [Path(f) for f in args.files]
    fmt = pick_format(args.format, args.output)
    durations = []
    for f in files:
        try:
            durations.append(audio_duration(f))
            note = truncation_warning(f)
        except AudioError as exc:
            raise CliError(str(exc)) from None
        if note:  # a recorder that crashed: every frame there is good, so use them
            warn(f"{f}: {note}")
    targets = output_paths(files, fmt, args.output)
    for target in targets:  # before any work: a clash found after an hour of transcribing is too late
        refuse_to_overwrite(target, args.overwrite)
    recognizer = make_recognizer(
        args.recognizer, args.model, live=False, verbose=getattr(args, "verbose", False)
    )
    model = load_model(args.model_dir, args.threads)
    from engine.session.build import keeps_written_marks

    # Live defaults: on Whisper's words of a whole file (decoded once per window, not live) the
    # offline decoder with its marks folded in is not level with them on every file (docs/QUALITY.md).
    written = keeps_written_marks(recognizer, getattr(args, "marks", "auto"))
    for path, target, seconds in zip(files, targets, durations):
        bar = ProgressBar(path.name)

        def progress(stage: str, done: float, total: float, bar=bar, name=path.name) -> None:
            bar.update(done, total, f"{stage} {name}")

        interrupted = None
        try:
            transcript = transcribe_file(path, recognizer, model, progress, written_marks=written)
        except Interrupted as stop:  # Ctrl-C: write what was heard, then stop
            interrupted, transcript = stop, stop.transcript
        except (AudioError, RecognizerError) as exc:
            raise CliError(str(exc)) from None
        finally:
            bar.finish()
        if interrupted is not None:
            where = "" if target is None else f" in {target}"
            warn(
                f"{path}: interrupted: keeping the {len(transcript.words)} words of the first "
                f"{interrupted.seconds:.1f} s{where}"
            )
            if transcript.words:
                write_transcript(transcript, fmt, target, path, args.overwrite)
            return 130
        if not transcript.words:
            where = "" if target is None else f"; {target} was not written"
            warn(f"{path}: no speech was recognized in {seconds:.1f} s of audio{where}")
            continue
        write_transcript(transcript, fmt, target, path, args.overwrite)
    return 0


def write_transcript(transcript, fmt: str, target: Path | None, source: Path, overwrite: bool) -> None:
    from engine.transcript.export import ExportError, export, render

    try:
        if target is None:
            sys.stdout.write(render(transcript, fmt))
            sys.stdout.flush()
        else:
            refuse_to_overwrite(target, overwrite)  # again: it may have appeared meanwhile
            export(transcript, fmt, target)
            print(f"{source} -> {target} ({len(transcript.words)} words)", file=sys.stderr)
    except ExportError as exc:
        raise CliError(f"{source}: {exc}") from None
    except OSError as exc:
        raise CliError(f"cannot write {target}: {exc.strerror or exc}") from None
