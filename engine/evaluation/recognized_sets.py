"""A saved recognizer-output dev set, read back: each reading's excerpts, the words a recognizer
committed batch by batch with the clock they came at, and the reading's audio for prosody.

``python -m engine.evaluation.recognized_dev`` records the sets (``build_sets``); an evaluator
replays them (``load_dev_sets``) and scores any punctuation of their words against the text that
was read (``score_set``). The set's JSON holds everything but the audio, which lies beside it in
its parts folder.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.evaluation.e2e_speech import Excerpt, Speech
from engine.evaluation.whisper_marks import Writings
from engine.words import Word

__all__ = [
    "RecognizedSet",
    "audio_folder",
    "excerpt_from_dict",
    "excerpt_to_dict",
    "load_dev_sets",
    "parts_folder",
    "score_set",
    "word_from_dict",
    "word_to_dict",
]


# -- words and excerpts ----------------------------------------------------------------------------
def word_to_dict(w: Word) -> dict:
    return {
        "text": w.text,
        "start": None if w.start is None else round(w.start, 3),
        "end": None if w.end is None else round(w.end, 3),
        "confidence": round(w.confidence, 4),
        "written": w.written,
    }


def word_from_dict(d: dict) -> Word:
    return Word(d["text"], d.get("start"), d.get("end"), d.get("confidence", 1.0), d.get("written", ""))


def excerpt_to_dict(e: Excerpt) -> dict:
    return {"source": e.source, "words": e.words, "marks": e.marks, "cases": e.cases}


def excerpt_from_dict(d: dict) -> Excerpt:
    return Excerpt(d["source"], list(d["words"]), list(d["marks"]), list(d["cases"]))


def parts_folder(out: Path) -> Path:
    return out.parent / f"{out.stem}.parts"


# -- the saved set ---------------------------------------------------------------------------------
@dataclass
class RecognizedSet:
    """One dev file read by one TTS engine and heard by one recognizer, as committed."""

    file: str  # "austen_persuasion"
    recognizer: str
    tts: str
    excerpts: list[Excerpt]
    spans: list[tuple[float, float]]  # each excerpt's (start, end) on the reading's clock, seconds
    # Committed words and the silence clock when they came (``whisper_marks.recognize_live_writings``); a
    # set saved before the clock (``clock`` "stream") has the stream's time instead.
    batches: list[tuple[list[Word], float]]
    audio_seconds: float = 0.0
    cpu_seconds: float = 0.0
    audio_file: str | None = None  # the reading itself (int16 .npy beside the saved set), for prosody
    style: dict | None = None  # Piper's speaking style (``PiperStyle.to_dict``), None for the others
    clock: str = "committed"
    writings: Writings | None = None  # the writings the words were committed with, and the newer ones

    @property
    def words(self) -> list[Word]:
        return [w for batch, _ in self.batches for w in batch]

    def to_dict(self) -> dict:
        return {
            "file": self.file,
            "recognizer": self.recognizer,
            "tts": self.tts,
            "audio_seconds": round(self.audio_seconds, 2),
            "cpu_seconds": round(self.cpu_seconds, 1),
            "audio_file": self.audio_file,
            "style": self.style,
            "clock": self.clock,
            **(
                {}
                if self.writings is None
                else {
                    "first_writings": {str(i): w for i, w in self.writings.first.items()},
                    "rewrites": [list(r) for r in self.writings.rewrites],
                }
            ),
            "excerpts": [excerpt_to_dict(e) for e in self.excerpts],
            "spans": [[round(a, 3), round(b, 3)] for a, b in self.spans],
            "batches": [
                {"now": round(now, 3), "words": [word_to_dict(w) for w in words]}
                for words, now in self.batches
            ],
        }

    @classmethod
    def from_dict(cls, d: dict, tts: str | None = None) -> RecognizedSet:
        return cls(
            d["file"], d["recognizer"], d.get("tts", tts or ""),
            [excerpt_from_dict(e) for e in d["excerpts"]],
            [(float(a), float(b)) for a, b in d["spans"]],
            [([word_from_dict(w) for w in b["words"]], float(b["now"])) for b in d["batches"]],
            d.get("audio_seconds", 0.0), d.get("cpu_seconds", 0.0), d.get("audio_file"), d.get("style"),
            d.get("clock", "stream"),
            Writings({int(i): w for i, w in d["first_writings"].items()},
                     [(int(k), int(i), str(w)) for k, i, w in d["rewrites"]]) if "rewrites" in d else None,
        )  # fmt: skip

    def audio(self, folder: Path) -> np.ndarray | None:
        """The reading's audio (16 kHz int16), from ``folder`` (where the set's JSON lies), or None
        where it was not kept or is gone."""
        if not self.audio_file:
            return None
        try:
            return np.load(folder / self.audio_file, allow_pickle=False)
        except (OSError, ValueError):
            return None


def load_dev_sets(path: str | Path, prosody: bool = True) -> list[RecognizedSet]:
    """The sets saved at ``path``; with ``prosody``, each word whose reading's audio was kept
    carries its prosody, measured as a live session measures it."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    sets = [RecognizedSet.from_dict(s, data.get("tts")) for s in data["sets"]]
    if any(rset.clock == "stream" for rset in sets):
        print(
            f"{path}: recorded before the silence clock, so silence settles its live marks on the "
            "audio's time; record it again with this livecap for live figures",
            file=sys.stderr,
        )
    if prosody:
        from engine.prosody.tracker import annotate_recording

        for rset in sets:
            audio = rset.audio(audio_folder(Path(path)))
            if audio is not None:
                measured, previous = [], None
                for words, now in rset.batches:  # batch after batch, as a session measures them
                    measured.append((annotate_recording(audio, words, previous), now))
                    previous = measured[-1][0][-1] if measured[-1][0] else previous
                rset.batches = measured
    return sets


def audio_folder(out: Path) -> Path:
    """Where a saved set's readings lie: its parts folder (the audio is named in each set)."""
    return parts_folder(Path(out))


def score_set(rset: RecognizedSet, marks: Sequence[str], forms: Sequence[str]) -> dict:
    """``marks_f1``, ``per_mark_f1``, ``nonlower_f1`` and ``wer`` of a punctuation of ``rset.words``
    (one mark and one displayed form per word) against the text that was read."""
    from engine.evaluation.whisper_marks import scored

    words = rset.words
    if len(marks) != len(words) or len(forms) != len(words):
        raise ValueError(f"{len(words)} words, but {len(marks)} marks and {len(forms)} forms")
    return scored(rset.excerpts, Speech(np.zeros(0, np.int16), rset.spans), words, list(marks), list(forms))
