"""The app and the CLI share the engine's pipeline: one session factory, one re-punctuation."""

from dataclasses import replace

import pytest

import app.workers.session_bridge as session_bridge
import engine.cli.listen as listen
from app.exporting import refine
from app.workers.session_bridge import IDLE, SessionBridge
from engine.cli.main import build_parser
from engine.recognizers.pocketsphinx_rec import PocketSphinxRecognizer
from engine.session import build
from engine.session.batch import transcribe_file
from engine.transcript.transcript import Transcript, TranscriptWord
from tests.speech import SENTENCE, write_speech_wav


@pytest.fixture(scope="module")
def speech_wav(tmp_path_factory):
    return write_speech_wav(tmp_path_factory.mktemp("bridge") / "speech.wav", SENTENCE, repeats=1)


def test_the_cli_and_the_app_build_their_sessions_with_the_same_factory(
    monkeypatch, qtbot, speech_wav, tiny_model_dir, tmp_path
):
    monkeypatch.setenv("LIVECAP_DATA_DIR", str(tmp_path / "data"))
    built = []

    def spy(spec, resources):
        session, info = build.build_live_session(spec, resources)
        built.append((spec, session.engine.decoder.settings, resources.punctuation_model(spec.model_dir)))
        return session, info

    monkeypatch.setattr(listen, "build_live_session", spy)
    monkeypatch.setattr(session_bridge, "build_live_session", spy)
    argv = [
        "listen",
        "--source",
        str(speech_wav),
        "--recognizer",
        "pocketsphinx",
        "--model-dir",
        str(tiny_model_dir),
    ]
    assert listen.cmd_listen(build_parser().parse_args(argv)) == 0
    [(cli_spec, cli_settings, model)] = built

    # The same spec through the app's bridge: the same decoder settings.
    bridge = SessionBridge(recognizer_factory=lambda kind, model: (PocketSphinxRecognizer(), ""))
    for spec in (cli_spec, replace(cli_spec, threshold=1.25, l_max=2, casing=False)):
        with qtbot.waitSignal(bridge.finished, timeout=60000):
            assert bridge.start(spec)
        qtbot.waitUntil(lambda: bridge.state == IDLE, timeout=10000)
    assert [s for s, _, _ in built[1:]] == [
        cli_spec,
        replace(cli_spec, threshold=1.25, l_max=2, casing=False),
    ]
    assert built[1][1] == cli_settings == model.config.decoder  # the CLI's listen: the model's settings
    app_settings = built[2][1]
    assert (app_settings.threshold, app_settings.l_max, app_settings.casing) == (1.25, 2, False)
    assert app_settings == cli_spec.decoder_settings(model.config.decoder).override(
        threshold=1.25, l_max=2, casing=False
    )
    bridge.close_recognizers()


def test_refining_the_live_words_gives_what_livecap_transcribe_gives(speech_wav, tiny_model):
    batch = PocketSphinxRecognizer(final_pass=True)
    transcribed = transcribe_file(speech_wav, batch, tiny_model)
    assert len(transcribed.words) >= 4
    # The app's live transcript: the same timed words, other (live) marks and case.
    live = Transcript(
        [TranscriptWord(w.text, w.start, w.end, w.confidence, "comma", "upper") for w in transcribed.words]
    )
    steps = []
    refined = refine(live, tiny_model, progress=lambda done, total: steps.append((done, total)), workers=2)
    assert refined.to_dict() == transcribed.to_dict()
    assert steps and steps[-1][0] == steps[-1][1]


def test_refining_can_be_cancelled_from_its_progress_callback(tiny_model):
    live = Transcript([TranscriptWord(f"w{i}", i * 0.3, i * 0.3 + 0.2) for i in range(300)])

    class Cancelled(Exception):
        pass

    def cancel(done, total):
        raise Cancelled

    with pytest.raises(Cancelled):
        refine(live, tiny_model, progress=cancel)
