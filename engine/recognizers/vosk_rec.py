"""Vosk (Kaldi) recognizer: the accurate one, with a model the user downloads.

libvosk reports through JSON strings; the parsing lives in pure functions so it
can be tested on Vosk's documented output without a model:

- ``Result()`` / ``FinalResult()``: ``{"result": [{"conf", "start", "end", "word"}...], "text": "..."}``
  (``result`` is absent when nothing was recognized: ``{"text": ""}``);
- ``PartialResult()`` with ``SetPartialWords(True)``:
  ``{"partial": "...", "partial_result": [{"word", "start", "end", "conf"}...]}``.

Vosk's times already count from the first sample the recognizer was fed, across
endpoints; ``reset`` makes a fresh ``KaldiRecognizer`` so a new stream starts at 0.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.recognizers.base import (
    SAMPLE_RATE,
    RecognizerError,
    RecognizerUpdate,
    as_pcm_bytes,
    clamp_confidence,
)
from engine.vosk_models.layout import is_vosk_model, model_problems
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
        raise RecognizerError(
            f"Vosk model folder {folder} does not exist: run `livecap models download NAME` "
            f"or pass the folder of an unpacked Vosk model"
        )
    if not folder.is_dir():
        raise RecognizerError(f"{folder} is a file, not a Vosk model folder: unpack the model archive first")
    problems = model_problems(folder)
    if problems:
        inner = [p for p in sorted(folder.iterdir()) if p.is_dir() and is_vosk_model(p)]
        hint = (
            f"; the model seems to be one level down, in {inner[0]}"
            if inner
            else f"; it lacks {'; '.join(problems)}"
        )
        raise RecognizerError(f"{folder} is not a Vosk model{hint}")
    return folder


class VoskRecognizer:
    name = "vosk"
    sample_rate = SAMPLE_RATE

    def __init__(self, model_path: str | Path):
        folder = check_vosk_model(model_path)
        try:
            import vosk
        except ImportError as exc:
            raise RecognizerError("Vosk is not installed: run `pip install vosk`") from exc
        vosk.SetLogLevel(-1)  # Kaldi logs every model file it reads to stderr
        self._vosk = vosk
        try:
            self._model = vosk.Model(str(folder))
        except Exception as exc:  # vosk raises a bare Exception("Failed to create a model")
            raise RecognizerError(
                f"Vosk could not load the model in {folder} ({exc}); it may be damaged or "
                f"incomplete: download it again with `livecap models download NAME`"
            ) from exc
        self.model_path = folder
        self.reset()

    def accept(self, pcm) -> RecognizerUpdate:
        data = as_pcm_bytes(pcm)
        self._samples += len(data) // 2
        if not data:
            return RecognizerUpdate(self._partial(), None)
        try:
            endpoint = self._rec.AcceptWaveform(data)
        except Exception as exc:
            raise RecognizerError(
                f"Vosk failed to process audio ({exc}); call reset() to start over"
            ) from exc
        if endpoint:
            # Result() closes the utterance; the next audio starts a new one (and an empty partial).
            final = words_from_vosk_result(json.loads(self._rec.Result()))
            return RecognizerUpdate([], final)
        return RecognizerUpdate(self._partial(), None)

    def flush(self) -> RecognizerUpdate:
        final = words_from_vosk_result(json.loads(self._rec.FinalResult()))
        return RecognizerUpdate([], final)

    def reset(self) -> None:
        # A new KaldiRecognizer is cheap (the model is shared) and its clock starts at 0;
        # KaldiRecognizer.Reset() would keep counting from the old stream.
        self._rec = self._vosk.KaldiRecognizer(self._model, float(SAMPLE_RATE))
        self._rec.SetWords(True)
        self._rec.SetPartialWords(True)
        self._samples = 0

    @property
    def stream_time(self) -> float:
        """Seconds of audio fed since the stream began: the audio clock for ``WordStabiliser``."""
        return self._samples / SAMPLE_RATE

    def _partial(self) -> list[Word]:
        return words_from_vosk_partial(json.loads(self._rec.PartialResult()))
