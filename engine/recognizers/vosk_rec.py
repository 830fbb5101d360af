"""Vosk (Kaldi) recognizer: the accurate one, with a model the user downloads.

libvosk reports through JSON strings; the parsing lives in pure functions so it
can be tested on Vosk's documented output without a model:

- ``Result()`` / ``FinalResult()``: ``{"result": [{"conf", "start", "end", "word"}...], "text": "..."}``
  (``result`` is absent when nothing was recognized: ``{"text": ""}``);
- ``PartialResult()`` with ``SetPartialWords(True)``:
  ``{"partial": "...", "partial_result": [{"word", "start", "end", "conf"}...]}``.

Vosk's times already count from the first sample the recognizer was fed, across
endpoints; ``reset`` makes a fresh ``KaldiRecognizer`` so a new stream starts at 0.

A model that will not load fails with one line naming the folder and the ways out
(``RecognizerError.ways_out``): Kaldi's own output, up to a 70-line option dump for a bad
``model.conf``, is kept off the terminal unless the caller asks for it (``verbose``).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from engine.audio import SAMPLE_RATE
from engine.recognizers.base import (
    RecognizerError,
    RecognizerUpdate,
    WayOut,
    as_pcm_bytes,
    clamp_confidence,
)
from engine.vosk_models.layout import is_vosk_model, model_problems, nested_model
from engine.words import Word

# Vosk's out-of-vocabulary marker is not a word anyone said.
_NOT_WORDS = frozenset({"[unk]", "<unk>", "<UNK>"})


def _words(entries, offset: float) -> list[Word]:
    words = []
    for entry in entries or ():
        text = str(entry.get("word", "")).strip()
        if not text or text in _NOT_WORDS:
            continue
        start, end = entry.get("start"), entry.get("end")
        words.append(
            Word(
                text,
                None if start is None else round(float(start) + offset, 3),
                None if end is None else round(float(end) + offset, 3),
                clamp_confidence(entry.get("conf")),
            )
        )
    return words


def words_from_vosk_result(result: dict, offset: float = 0.0) -> list[Word]:
    """Words of a ``Result()``/``FinalResult()`` object; untimed words from ``text`` if SetWords was off."""
    if "result" in result:
        return _words(result["result"], offset)
    return [Word(w) for w in str(result.get("text", "")).split() if w not in _NOT_WORDS]


def words_from_vosk_partial(partial: dict, offset: float = 0.0) -> list[Word]:
    """Words of a ``PartialResult()`` object; untimed words from ``partial`` if SetPartialWords was off."""
    if "partial_result" in partial:
        return _words(partial["partial_result"], offset)
    return [Word(w) for w in str(partial.get("partial", "")).split() if w not in _NOT_WORDS]


def check_vosk_model(path: str | Path) -> Path:
    """Return the model folder, or raise RecognizerError saying what is wrong with it.

    The rule is ``engine.vosk_models.layout``'s, the one the catalogue and the installer use."""
    folder = Path(path).expanduser()
    if not folder.exists():
        ways = vosk_ways_out(folder)
        raise RecognizerError(
            f"Vosk model folder {folder} does not exist; {describe_ways_out(ways)}, "
            f"or pass the folder of an unpacked Vosk model",
            ways,
        )
    if not folder.is_dir():
        raise RecognizerError(f"{folder} is a file, not a Vosk model folder: unpack the model archive first")
    problems = model_problems(folder)
    if problems:
        inner = nested_model(folder)
        if inner is not None:
            raise RecognizerError(
                f"{folder} is not a Vosk model; the model seems to be one level down, in {inner}"
            )
        ways = vosk_ways_out(folder)
        raise RecognizerError(
            f"{folder} is not a Vosk model; it lacks {'; '.join(problems)}. {describe_ways_out(ways)}", ways
        )
    return folder


def vosk_ways_out(folder: Path) -> tuple[WayOut, ...]:
    """What the user can do about the Vosk model ``folder`` that will not load: always the built-in
    recognizer; "download" when the folder bears a catalogue model's name; "remove" when it is in
    the models folder, where ``livecap models remove`` works."""
    from engine.files import paths
    from engine.vosk_models.catalogue import DEFAULT_ENGLISH, CatalogueError, load_catalogue

    name = folder.name
    ways = [WayOut("use_builtin", "Use the built-in recognizer", "--recognizer whisper")]
    try:
        catalogued = name in {entry.name for entry in load_catalogue()}
    except CatalogueError:
        catalogued = False
    in_models_dir = _same_folder(folder.parent, paths.recognizer_models_dir())
    if catalogued:
        command = f"livecap models download {name}"
        if in_models_dir and is_vosk_model(folder):
            # The installer keeps a folder that looks complete, so a damaged one is replaced.
            command += " --replace"
        ways.append(WayOut("download", "Download again", command, name))
    elif not folder.exists():
        command = f"livecap models download {DEFAULT_ENGLISH}"
        ways.append(WayOut("download", "Download the English model", command, DEFAULT_ENGLISH))
    if in_models_dir and folder.exists():
        ways.append(WayOut("remove", "Remove", f"livecap models remove {name}", name))
    return tuple(ways)


def describe_ways_out(ways: tuple[WayOut, ...]) -> str:
    """The ways out as one line: "use the built-in recognizer: --recognizer whisper; …"."""
    return "; ".join(f"{way.label[0].lower()}{way.label[1:]}: {way.command}" for way in ways)


def _same_folder(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


@contextmanager
def _native_stderr_held(keep: bool):
    """Send what native code writes to file descriptor 2 into a temporary file for the duration,
    unless ``keep``. Kaldi writes to C++'s std::cerr, which ``vosk.SetLogLevel`` does not govern
    (its usage dump on a bad config goes there); yields a callable returning the text held back.
    Anything another thread prints meanwhile is held back too, so ``_replay`` gives it back when
    the load succeeds (Kaldi then said nothing worth hiding)."""
    if keep:
        yield lambda: ""
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no fd 2 (a windowless start): nothing to hide
        yield lambda: ""
        return
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:

            def text() -> str:
                held.seek(0)
                return held.read().decode("utf-8", "replace")

            yield text
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def _replay(text: str) -> None:
    if text:
        try:
            os.write(2, text.encode("utf-8", "replace"))
        except OSError:
            pass


def _kaldi_reason(output: str) -> str | None:
    """The last ``ERROR (VoskAPI:...) message`` line Kaldi wrote, without its source location."""
    for line in reversed(output.splitlines()):
        if line.startswith("ERROR (") and ") " in line:
            return line.split(") ", 1)[1].strip()
    return None


class VoskRecognizer:
    name = "vosk"
    sample_rate = SAMPLE_RATE
    writes_marks = False  # bare lower-case words
    commits_words = False  # its partials are committed by the stabiliser once stable
    revises_writing = False
    multilingual = False  # one model, one language (``language``, from its name)
    detects_language = False
    translating = False
    decodes = None  # it decodes as audio arrives

    def __init__(self, model_path: str | Path, verbose: bool = False):
        """``verbose``: let Kaldi log what it loads, and its own errors, to stderr."""
        folder = check_vosk_model(model_path)
        try:
            import vosk
        except ImportError as exc:
            raise RecognizerError("Vosk is not installed: run `pip install vosk`") from exc
        # Kaldi logs every model file it reads, and warns about what it shrugs off while decoding
        # (words it cannot align at the end of a long utterance): its messages up to warnings
        # (-1) are for --verbose; errors (-2) still show.
        vosk.SetLogLevel(0 if verbose else -2)
        self._vosk = vosk
        with _native_stderr_held(keep=verbose) as kaldi_output:
            try:
                self._model = vosk.Model(str(folder))
                failure = None
            except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
                failure = exc
            said = kaldi_output()
        if failure is None:
            _replay(said)
        else:
            reason = _kaldi_reason(said) or str(failure)
            ways = vosk_ways_out(folder)
            more = "" if verbose else " (--verbose shows Kaldi's log)"
            raise RecognizerError(
                f"Vosk could not load the model in {folder}: {reason}{more}. It may be damaged or "
                f"incomplete; {describe_ways_out(ways)}",
                ways,
            ) from failure
        self.model_path = folder
        from engine.vosk_models.catalogue import model_language

        self.language = model_language(folder)  # None: unknown, taken for English
        self._closed = False
        self.reset()

    def accept(self, pcm) -> RecognizerUpdate:
        self._check_open()
        data = as_pcm_bytes(pcm)
        self._samples += len(data) // 2
        if not data:
            return RecognizerUpdate(self._partial(), None, heard_through=self.stream_time)
        try:
            endpoint = self._rec.AcceptWaveform(data)
        except Exception as exc:
            raise RecognizerError(
                f"Vosk failed to process audio ({exc}); call reset() to start over"
            ) from exc
        if endpoint:
            # Result() closes the utterance; the next audio starts a new one (and an empty partial).
            final = words_from_vosk_result(json.loads(self._rec.Result()))
            return RecognizerUpdate([], final, heard_through=self.stream_time)
        # Kaldi decodes each chunk as it comes: its partial holds every word heard so far.
        return RecognizerUpdate(self._partial(), None, heard_through=self.stream_time)

    def flush(self) -> RecognizerUpdate:
        self._check_open()
        final = words_from_vosk_result(json.loads(self._rec.FinalResult()))
        return RecognizerUpdate([], final, heard_through=self.stream_time)

    def reset(self) -> None:
        self._check_open()
        # A new KaldiRecognizer is cheap (the model is shared) and its clock starts at 0;
        # KaldiRecognizer.Reset() would keep counting from the old stream.
        self._rec = self._vosk.KaldiRecognizer(self._model, float(SAMPLE_RATE))
        self._rec.SetWords(True)
        self._rec.SetPartialWords(True)
        self._samples = 0

    def another_stream(self) -> VoskRecognizer:
        """A stream of its own on this one's loaded model (a Kaldi model serves many recognizers)."""
        self._check_open()
        other = object.__new__(VoskRecognizer)
        other._vosk, other._model = self._vosk, self._model
        other.model_path, other.language, other._closed = self.model_path, self.language, False
        other.reset()
        return other

    def close(self) -> None:
        """Let the model go (libvosk frees it with the last reference). Idempotent."""
        self._closed = True
        self._rec = self._model = None

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def stream_time(self) -> float:
        """Seconds of audio fed since the stream began: the audio clock for ``WordStabiliser``."""
        return self._samples / SAMPLE_RATE

    def _check_open(self) -> None:
        if self._closed:
            raise RecognizerError("The Vosk recognizer was closed; start a new session")

    def _partial(self) -> list[Word]:
        return words_from_vosk_partial(json.loads(self._rec.PartialResult()))
