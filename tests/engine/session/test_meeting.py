"""A meeting session: two sources, one Whisper model, words labelled Me and Others, and the
echo guard hiding the others' words that the microphone heard again.

Real parts throughout: espeak-ng speech in WAV files as the two sides' sources, the shipped
Whisper tiny.en (one model, two streams), the punctuation engine and the transcript."""

import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.audio.pausable import SourceChoice
from engine.evaluation.e2e_score import align
from engine.evaluation.e2e_score import word_errors as counted_errors
from engine.recognizers.whisper_rec import WhisperRecognizer
from engine.session.build import SessionSpec, build_live_session
from engine.session.resources import SessionResources
from engine.speakers.labels import ME, OTHERS, is_others
from tests.speech import espeak

pytestmark = [pytest.mark.slow, pytest.mark.needs_espeak]

RATE = 16_000
MINE = "the council met on tuesday to discuss the budget and they agreed to meet again next month"
THEIRS = "the schedule is mostly settled and the team agrees"


def _speech(text: str, folder: Path, name: str) -> np.ndarray:
    clip, rate = espeak(text, folder / f"{name}.clip.wav")
    assert rate in (RATE, 22_050)
    if rate != RATE:  # espeak-ng speaks at 22.05 kHz: the test's files are 16 kHz
        idx = np.arange(0, len(clip), rate / RATE)
        clip = np.interp(idx, np.arange(len(clip)), clip.astype(np.float32)).astype(np.int16)
    return clip


def _write(path: Path, parts: list[tuple[float, np.ndarray]], seconds: float) -> Path:
    audio = np.zeros(int(seconds * RATE), np.float32)
    for at, clip in parts:
        start = int(at * RATE)
        audio[start : start + len(clip)] += clip.astype(np.float32)
    sf.write(path, np.clip(audio, -32768, 32767).astype(np.int16), RATE, subtype="PCM_16")
    return path


@pytest.fixture(scope="module")
def meeting_files(tmp_path_factory):
    """Me speaks first; the others answer 6 s in, and the microphone hears their answer again
    through the speakers, 10 dB down and 60 ms late (no headset)."""
    folder = tmp_path_factory.mktemp("meeting")
    mine, theirs = _speech(MINE, folder, "me"), _speech(THEIRS, folder, "others")
    echo = (theirs.astype(np.float32) * 10 ** (-10 / 20)).astype(np.int16)
    seconds = 6 + len(theirs) / RATE + 2
    me = _write(folder / "me.wav", [(0.5, mine), (6.06, echo)], seconds)
    others = _write(folder / "others.wav", [(6.0, theirs)], seconds)
    return me, others


@pytest.fixture(scope="module")
def whisper():
    from engine.recognizers.whisper_options import WhisperOptions

    # The files are read as fast as they decode: decodes spaced out by this machine's load (the
    # live pace) would make the words depend on what else runs.
    return WhisperRecognizer(live=True, options=WhisperOptions(keep_pace=False))


def _meeting(me: Path, others: Path, whisper, guard: bool = True):
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (whisper, ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("file", str(me)), others=SourceChoice("file", str(others)),
        journal=False, realtime=False,
    )  # fmt: skip
    session, info = build_live_session(spec, resources)
    if not guard:
        session.merger.guard = None
    return session, info


def word_errors(ref: list[str], hyp: list[str]) -> float:
    return counted_errors(ref, hyp, align(ref, hyp))["wer"]


def _said(transcript, side: str) -> list[str]:
    """The words of one side: Me's, or the others' whatever voice they were told apart as."""
    return [w.text for w in transcript.words if (w.heard.speaker == ME) == (side == ME)]


def test_both_sides_are_captioned_on_one_model_and_labelled(meeting_files, whisper):
    session, _ = _meeting(*meeting_files, whisper)
    me, others = session.sides
    # One loaded model: the others' stream decodes on the microphone's.
    assert others.recognizer is not whisper and others.recognizer._model is whisper._model
    session.start()
    assert session.wait(180)
    transcript = session.stop()
    assert word_errors(MINE.split(), _said(transcript, ME)) <= 0.2, _said(transcript, ME)
    assert word_errors(THEIRS.split(), _said(transcript, OTHERS)) <= 0.2, _said(transcript, OTHERS)
    assert all(w.heard.speaker == ME or is_others(w.heard.speaker) for w in transcript.words)
    # The session's own stream was closed with it; the front end's cached recognizer was not.
    assert others.recognizer.closed and not whisper.closed
    assert session.merger.guard.hidden >= len(THEIRS.split()) // 2  # the echo was heard, and hidden


def test_without_the_guard_the_echo_shows_as_me(meeting_files, whisper):
    session, _ = _meeting(*meeting_files, whisper, guard=False)
    session.start()
    assert session.wait(180)
    transcript = session.stop()
    mine = _said(transcript, ME)
    echoed = [w for w in THEIRS.split() if w in mine and w not in MINE.split()]
    # What the guard is for: the microphone's recognizer hears the others' words too.
    assert len(echoed) >= 3, mine


@pytest.mark.skipif(shutil.which("flite") is None, reason="flite is not installed (apt-get install flite)")
def test_the_others_voices_are_told_apart_and_their_labels_settle(tmp_path, whisper):
    """Two voices among the others, one after the other: their words are labelled others:1 and
    others:2 (in order of first hearing; shown as "Others" and "Others 2"), and every label has
    settled by the end."""
    from engine.evaluation.e2e_speech import speak_with
    from engine.events import Appended, SpeakersLabelled

    first = _speech(THEIRS, tmp_path, "first")
    second = speak_with("flite", "thank you that sounds good to me and we can start next week", "slt")
    others = _write(tmp_path / "others.wav", [(0.5, first), (0.5 + len(first) / RATE + 1.5, second)],
                    3 + (len(first) + len(second)) / RATE)  # fmt: skip
    me = _write(tmp_path / "me.wav", [], 3 + (len(first) + len(second)) / RATE)
    session, _ = _meeting(me, others, whisper)
    seen = []
    session.subscribe(
        lambda events: seen.extend(e for e in events if isinstance(e, (Appended, SpeakersLabelled)))
    )
    session.start()
    assert session.wait(180)
    transcript = session.stop()
    voices = [w.heard.speaker for w in transcript.words]
    cut = len(THEIRS.split())
    said = [(w.text, w.heard.speaker, round(w.start, 2)) for w in transcript.words]
    assert set(voices[: cut - 1]) == {"others:1"} and set(voices[cut + 1 :]) == {"others:2"}, said
    labels = [e for e in seen if isinstance(e, SpeakersLabelled)]
    assert labels and labels[-1].settled_through == len(transcript.words)  # all final
    # A label shows with its word: every Others word was appended with a voice already.
    assert all(e.word.speaker.startswith("others:") for e in seen if isinstance(e, Appended))
