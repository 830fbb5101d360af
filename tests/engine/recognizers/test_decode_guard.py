"""The decode guard: Whisper writes no loop and no word the audio does not hold, live and for files.

The looping audio is real: Piper's joe reading a paragraph under babble from five espeak-ng voices
at 0 dB, on which the real tiny.en writes "i was an average of all of these pounds" ten times
over without the guard, live and as a file. Non-speech is made here with numpy."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.recognizers.decode_guard import (
    DecodeGuard,
    Segment,
    compression_ratio,
    loop_start,
    segments_of,
)
from engine.words import Word
from tests.speech import piper_missing

RATE = 16000
PARAGRAPH = (
    "I was in the past a teacher in a small town by the sea. Every morning I walked to the school "
    "along the harbour and watched the boats come in. The children were loud and curious, and they "
    "asked me questions I could not always answer. Later I moved to the city and worked in an office, "
    "but I still remember the smell of the water and the sound of the gulls."
)
BABBLE = {
    "en-us": "the committee will meet again on thursday to decide the budget for next year",
    "en-gb": "she bought three apples and a loaf of bread at the market this morning",
    "en-us+f3": "please remember to close the windows before you leave the building tonight",
    "en-gb+m3": "the train to the airport leaves every twenty minutes from platform four",
    "en-us+f2": "our neighbours have a large dog that barks whenever someone walks past",
}


def hyp(text: str, step: float = 0.3) -> list[Word]:
    from engine.recognizers.local_agreement import bare_word

    return [Word(bare_word(w), i * step, (i + 1) * step, 1.0, w) for i, w in enumerate(text.split())]


def texts(words) -> list[str]:
    return [w.text for w in words]


def a_loop(words: list[str]) -> str | None:
    """The loop in ``words``, described, or None: a word five times back to back, a phrase of two
    to ten words three times back to back, or a phrase of four words or more four times."""
    for start in range(len(words)):
        for size in range(1, 11):
            gram = words[start : start + size]
            if len(gram) < size:
                break
            repeats = 1
            while words[start + repeats * size : start + (repeats + 1) * size] == gram:
                repeats += 1
            if repeats >= (5 if size == 1 else 3):
                return f"{' '.join(gram)!r} {repeats} times back to back"
            if size >= 4:
                count = sum(words[i : i + size] == gram for i in range(len(words) - size + 1))
                if count >= 4:
                    return f"{' '.join(gram)!r} {count} times"
    return None


# -- the rules, on hypotheses --------------------------------------------------------------------
def test_a_hypothesis_that_loops_is_cut_where_the_loop_starts():
    looped = hyp("siete suje a lo, man, man, man, man, man, man, man, un poco")
    assert texts(DecodeGuard().without_loops(looped)) == ["siete", "suje", "a", "lo", "man"]
    numbers = hyp("el frente .000 .000 .000 .000 .000 .000")
    assert texts(DecodeGuard().without_loops(numbers)) == ["el", "frente", "000"]
    phrase = hyp("que ainda é o que ainda é o que ainda é o que ainda é o que ainda é o fim")
    assert texts(DecodeGuard().without_loops(phrase)) == ["que", "ainda", "é", "o"]
    five = hyp("Well, I was in the past, I was in the past, I was in the past, I was in the past.")
    assert texts(DecodeGuard().without_loops(five)) == "well i was in the past".split()
    eleven = " or if you can go on the seat of the room," * 3
    assert (
        texts(DecodeGuard().without_loops(hyp("Ask" + eleven)))
        == ["ask"] + eleven.replace(",", "").split()[:11]
    )


def test_a_phrase_that_comes_back_between_other_words_is_cut_at_its_second_round():
    words = hyp(
        "i was on the floor and then i was on the floor while it rained so i was on the floor again "
        "and i was on the floor"
    )
    assert texts(DecodeGuard().without_loops(words)) == "i was on the floor and then".split()


def test_a_repeat_people_say_is_not_a_loop():
    for text in (
        "No, no, no, no, that is not it.",
        "very very very good",
        "bye bye, bye bye, see you",
        "Please close the door. Please close the door. Thank you.",
        "I don't know, I don't know.",
    ):
        assert DecodeGuard().without_loops(hyp(text)) == hyp(text)
        assert loop_start(texts(hyp(text))) is None


def test_a_phrase_committed_twice_lately_is_cut_the_third_time_it_comes_back():
    guard = DecodeGuard()
    history = "so i was on the floor and we left i was on the floor".split()
    words = hyp("and then i was on the floor again")
    assert texts(guard.without_loops(words, history)) == ["and", "then"]
    # Once committed, a phrase may come back once: a speaker says a sentence again.
    assert guard.without_loops(words, history[:7]) == words
    # Words a live decode hears again (before the committed end) are not a new round of themselves.
    again = hyp("i was on the floor and then")
    assert guard.without_loops(again, history, committed_end=again[4].end) == again


def test_new_words_that_carry_on_a_repeat_the_committed_words_end_with_are_cut():
    guard = DecodeGuard()
    # A file's next window starts the pair its last one ended with: three rounds in all, a loop.
    history = "it is good to be".split()
    assert texts(guard.without_loops(hyp("to be to be and then"), history)) == []
    assert texts(guard.without_loops(hyp("to be and then we left"), history)) == [
        "to",
        "be",
        "and",
        "then",
        "we",
        "left",
    ]
    # Nor does a repeat people say, begun before, become one: "bye bye, bye bye, see you".
    assert guard.without_loops(hyp("bye bye, see you"), "well bye bye".split()) == hyp("bye bye, see you")
    # Committed words that hold a loop already are what they are: the new words are judged alone.
    looped = "no no no no no no".split()
    assert guard.without_loops(hyp("we went home"), looped) == hyp("we went home")


def test_whispers_silence_rule_and_compression_ratio_decide_on_segments():
    guard = DecodeGuard()
    guard.speech.heard(0.0, 60.0)
    speech = hyp("the boats came in")
    silent = Segment(tuple(speech), "the boats came in", avg_logprob=-1.3, no_speech_prob=0.8)
    unsure_but_speech = Segment(tuple(speech), "the boats came in", avg_logprob=-0.4, no_speech_prob=0.8)
    assert guard.keep([silent]).words == [] and guard.keep([unsure_but_speech]).words == speech
    # A decode Whisper finds repetitive is cut at the first phrase said twice, loop or not.
    text = "the big ones, the big ones. Later, the children came."
    flagged = Segment(tuple(hyp(text)), text, compression_ratio=3.2)
    kept = guard.keep([flagged])
    assert texts(kept.words) == ["the", "big", "ones"] and kept.looped
    unflagged = Segment(tuple(hyp(text)), text, compression_ratio=1.6)
    assert texts(guard.keep([unflagged]).words) == texts(hyp(text)) and not guard.keep([unflagged]).looped
    # A segment that compresses like a loop but shows no repeat to cut at says nothing worth keeping.
    long = "ah" * 60
    assert compression_ratio(long) > 2.4 and guard.keep([Segment(tuple(hyp(long)), long)]).words == []


def test_words_where_the_vad_heard_no_speech_are_dropped():
    guard = DecodeGuard()
    guard.speech.heard(0.0, 1.0)
    guard.speech.heard(1.032, 1.2)  # frames one after another merge
    words = hyp("we went home and it was quiet then", step=0.4)  # the last ends at 3.2 s
    assert texts(guard.keep([Segment(tuple(words), "")]).words) == "we went home and".split()
    guard.speech.forget_before(5.0)
    assert guard.keep([Segment(tuple(words), "")]).words == []


# -- real audio ------------------------------------------------------------------------------------
def babble(samples: int) -> np.ndarray:
    from engine.evaluation.e2e_speech import speak_with

    out = np.zeros(samples, np.float32)
    for voice, text in BABBLE.items():
        talk = speak_with("espeak-ng", text, voice=voice, speed=160).astype(np.float32) / 32768
        out += np.tile(talk, samples // len(talk) + 1)[:samples]
    return out


@pytest.fixture(scope="module")
def looping_audio() -> np.ndarray:
    """Piper's reading under 0 dB of espeak-ng babble, 16 kHz int16 (about 20 s)."""
    if shutil.which("espeak-ng") is None or piper_missing():
        pytest.skip("needs espeak-ng and Piper (the dev extra): they speak the looping audio")
    from engine.evaluation.e2e_speech import PiperStyle, speak_piper

    # Piper's noise off: the same audio every run, so the same loop.
    speech = speak_piper(PARAGRAPH, style=PiperStyle(noise_scale=0.0, noise_w=0.0)).astype(np.float32) / 32768
    pad = np.zeros(RATE // 2, np.float32)
    speech = np.concatenate([pad, speech, pad])
    noise = babble(len(speech))
    level = np.mean(speech[np.abs(speech) > 1e-4] ** 2)
    mixed = speech + noise * np.sqrt(level / np.mean(noise**2))  # 0 dB
    return (mixed / np.max(np.abs(mixed)) * 0.5 * 32767).astype(np.int16)


@pytest.fixture(scope="module")
def whisper():
    from engine.recognizers.whisper_rec import WhisperRecognizer

    recognizers = {live: WhisperRecognizer(live=live) for live in (True, False)}
    yield recognizers
    for recognizer in recognizers.values():
        recognizer.close()


def words_of(recognizer, audio: np.ndarray) -> list[Word]:
    recognizer.reset()
    words = []
    for at in range(0, len(audio), RATE // 10):
        words += recognizer.accept(audio[at : at + RATE // 10]).final or []
    return words + (recognizer.flush().final or [])


@pytest.mark.slow
def test_the_real_model_loops_on_this_audio_and_the_guard_keeps_what_came_before(whisper, looping_audio):
    model = whisper[False]._model
    model.encoder_frames.value = None
    segments, _ = model.transcribe(
        looping_audio.astype(np.float32) / 32768, language="en", beam_size=1, temperature=0.0,
        condition_on_previous_text=False, word_timestamps=True, vad_filter=False,
    )  # fmt: skip
    decoded = segments_of(segments, 0.0)
    raw = [w.text for segment in decoded for w in segment.words]
    assert a_loop(raw), f"the audio no longer makes tiny.en loop: {' '.join(raw)}"
    guard = DecodeGuard()
    guard.speech.heard(0.0, len(looping_audio) / RATE)
    kept = guard.keep(decoded)
    assert kept.looped and 3 <= len(kept.words) < len(raw) and not a_loop(texts(kept.words))
    assert texts(kept.words) == raw[: len(kept.words)]  # the words before the loop, as written


@pytest.mark.slow
@pytest.mark.parametrize("live", [True, False], ids=["live", "file"])
def test_on_audio_that_makes_whisper_loop_the_recognizer_writes_no_loop(whisper, looping_audio, live):
    words = texts(words_of(whisper[live], looping_audio))
    assert words and not a_loop(words), (a_loop(words), " ".join(words))


def pink_noise(rng) -> np.ndarray:
    white = np.fft.rfft(rng.standard_normal(25 * RATE))
    white /= np.sqrt(np.maximum(np.arange(len(white)), 1))
    noise = np.fft.irfft(white, 25 * RATE)
    return noise / np.std(noise) * 0.1


def chords(rng) -> np.ndarray:
    t = np.arange(int(1.5 * RATE)) / RATE
    out = []
    for root in rng.choice([220.0, 261.6, 293.7, 329.6, 392.0], 16):
        chord = sum(np.sin(2 * np.pi * root * ratio * t) for ratio in (1.0, 1.26, 1.5))
        out.append(chord * np.minimum(1.0, (t[-1] - t) * 8) * 0.1)
    return np.concatenate(out)


def typing(rng) -> np.ndarray:
    out = rng.standard_normal(25 * RATE) * 0.002
    click = np.exp(-np.arange(160) / 25.0)
    at = 0
    while at < len(out) - 200:
        out[at : at + 160] += rng.standard_normal(160) * click * 0.4
        at += int(rng.uniform(0.08, 0.4) * RATE)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("live", [True, False], ids=["live", "file"])
@pytest.mark.parametrize("make", [pink_noise, chords, typing])
def test_non_speech_gives_no_words(whisper, make, live):
    audio = (np.clip(make(np.random.default_rng(7)), -1, 1) * 32767).astype(np.int16)
    assert words_of(whisper[live], audio) == []


@pytest.mark.slow
@pytest.mark.parametrize("live", [True, False], ids=["live", "file"])
def test_a_repeat_the_speaker_says_stays(whisper, live):
    if piper_missing():
        pytest.skip("Piper is not installed (the dev extra): it speaks this test's audio")
    from engine.evaluation.e2e_speech import PiperStyle, speak_piper

    said = "No, no, no, that is not what I asked. Please close the door. Please close the door."
    speech = speak_piper(said, style=PiperStyle(noise_scale=0.0, noise_w=0.0))
    pad = np.zeros(RATE, np.int16)
    words = " ".join(texts(words_of(whisper[live], np.concatenate([pad, speech, pad]))))
    # Live, the local agreement takes the third "no" for the second heard again at the buffer's start
    # (so it did before the guard): two of three stay there.
    assert ("no no no" if not live else "no no") in words, words
    assert words.count("please close the door") == 2, words


@pytest.mark.slow
def test_a_session_on_looping_audio_journals_no_loop(whisper, looping_audio, tmp_path):
    import soundfile as sf

    from engine.audio.pausable import SourceChoice
    from engine.punctuation.model import load_model_or_shipped
    from engine.session.build import SessionSpec, build_live_session
    from engine.session.resources import SessionResources
    from engine.transcript.journal import read_journal

    wav = tmp_path / "looping.wav"
    sf.write(wav, looping_audio, RATE, subtype="PCM_16")
    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name, options=None: (whisper[True], ""), lambda folder: model)
    spec = SessionSpec(
        source=SourceChoice("file", str(wav)), realtime=False, journal_dir=tmp_path / "journal"
    )
    session, _ = build_live_session(spec, resources)
    whisper[True].reset()
    session.start()
    assert session.wait(300)
    transcript = session.stop()
    journaled = [w.text for w in read_journal(session.journal.path).transcript.words]
    assert journaled and journaled == [w.text for w in transcript.words]
    assert not a_loop(journaled), (a_loop(journaled), " ".join(journaled))
