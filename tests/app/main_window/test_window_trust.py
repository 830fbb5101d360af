"""The window's way out of each failure: a corrupt punctuation model falls back to the
shipped one with a banner naming the bad file, an unwritable data folder still captions and says
where the journal went; and the small things a new user notices (the level meter's label, the
placeholder's text, the recovery dialog's local time). Real Qt widgets offscreen, the real
pipeline on espeak-ng speech and the tiny ONNX model."""

import shutil

import pytest
from PySide6.QtCore import QThreadPool

from app.workers.session_bridge import IDLE
from engine.files import paths
from tests.app.main_window.test_window import play, wait_job

pytestmark = [pytest.mark.gui]


def words_of(final):
    return [w.text for w in final.words]


@pytest.mark.needs_espeak
def test_corrupt_punctuation_model_falls_back_to_the_shipped_one_with_a_banner(
    data_dir, settings, qtbot, speech_wav, tiny_model_dir, tmp_path, monkeypatch
):
    from engine.punctuation import model as punct_model

    corrupt = tmp_path / "corrupt-model"
    shutil.copytree(tiny_model_dir, corrupt)
    (corrupt / "model.onnx").write_bytes(b"this is not an onnx file")
    # The tiny model plays the shipped one: the real one is slow to load on a shared machine.
    monkeypatch.setattr(punct_model, "shipped_model_dir", lambda: tiny_model_dir)
    window = open_window(qtbot, settings, model_dir=corrupt, journal_dir=tmp_path / "journal")

    final = play(window, qtbot, speech_wav)

    assert len(words_of(final)) >= 3  # captions ran, on the shipped model
    assert window.banners.text("error") is None, window.banners.text("error")
    notice = window.banners.text("punctuation")
    assert notice is not None and str(corrupt / "model.onnx") in notice and "shipped" in notice, notice
    assert "ONNXRuntimeError" not in notice and "\n" not in notice


@pytest.mark.needs_espeak
def test_unwritable_data_folder_still_captions_and_says_where_the_journal_went(
    qtbot, settings, speech_wav, tiny_model_dir, tmp_path, monkeypatch
):
    blocker = tmp_path / "a-regular-file"
    blocker.write_text("")
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(blocker / "data"))  # nothing can be created under a file
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    window = open_window(qtbot, settings, model_dir=tiny_model_dir)  # the default journal folder

    final = play(window, qtbot, speech_wav)

    assert len(words_of(final)) >= 3
    assert window.banners.text("error") is None, window.banners.text("error")
    notice = window.banners.text("journal")
    assert notice is not None and str(blocker / "data") in notice and "\n" not in notice, notice
    fallback = [p for p in runtime.rglob("session-*.jsonl")]
    assert len(fallback) == 1 and str(fallback[0].parent) in notice


@pytest.mark.needs_espeak
def test_with_no_writable_folder_at_all_the_window_captions_without_a_journal_and_says_so(
    qtbot, settings, speech_wav, tiny_model_dir, tmp_path, monkeypatch
):
    import tempfile

    blocker = tmp_path / "a-regular-file"
    blocker.write_text("")
    monkeypatch.setenv(paths.OVERRIDE_ENV, str(blocker / "data"))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(blocker / "tmp"))  # nor a temporary folder
    window = open_window(qtbot, settings, model_dir=tiny_model_dir)

    final = play(window, qtbot, speech_wav)

    assert len(words_of(final)) >= 3  # captions ran all the same
    assert window.banners.text("error") is None, window.banners.text("error")
    notice = window.banners.text("journal")
    assert notice is not None and "\n" not in notice, notice
    assert str(blocker / "data") in notice and "crash recovery is off" in notice, notice
    assert list(tmp_path.rglob("session-*.jsonl")) == []
    # the words are still the window's to export: nothing said is lost with the journal
    assert window.text.unsaved and window.commands.export.isEnabled()
    wait_job(qtbot, window.text.export_to(tmp_path / "kept.txt"))
    assert (tmp_path / "kept.txt").read_text().split() == final.text().split()


def open_window(qtbot, settings, **kwargs):
    from app.main_window.window import CaptionWindow

    window = CaptionWindow(settings, **kwargs)
    window.realtime = False  # files as fast as they decode
    window.confirm_on_close = False
    qtbot.addWidget(window, before_close_func=_finish(qtbot))
    window.show()
    return window


def _finish(qtbot):
    def finish(w):
        if w.bridge.state != IDLE:
            w.bridge.stop()
            qtbot.waitUntil(lambda: w.bridge.state == IDLE, timeout=30000)
        w.bridge.wait(30000)
        QThreadPool.globalInstance().waitForDone(30000)

    return finish


def test_level_meter_has_a_visible_label_and_an_accessible_name(
    data_dir, settings, qtbot, tiny_model_dir, tmp_path
):
    window = open_window(qtbot, settings, model_dir=tiny_model_dir, journal_dir=tmp_path / "journal")
    label = window.meter_label
    assert label.isVisible() and "Input level" in label.text() and label.buddy() is window.meter
    assert window.meter.accessibleName() == "Input level"
    # The label stands right before the bar it names.
    assert label.geometry().right() <= window.meter.geometry().left()


def test_placeholder_says_what_to_do_with_no_microphone(
    data_dir, settings, qtbot, tiny_model_dir, monkeypatch
):
    from app.workers import sources

    monkeypatch.setattr(sources, "_list_microphones", list)  # the hardware that is absent
    window = open_window(qtbot, settings, model_dir=tiny_model_dir)
    window.sources.scan_devices()
    qtbot.waitUntil(lambda: window.banners.text("audio") is not None, timeout=10000)
    text = window.view.placeholderText()
    assert "Press Start" not in text and "No microphone" in text and "file" in text, text


@pytest.mark.needs_espeak
def test_placeholder_says_starting_then_no_speech_heard_after_a_silent_file(
    data_dir, settings, qtbot, tiny_model_dir, tmp_path
):
    import numpy as np
    import soundfile

    silent = tmp_path / "silent.wav"
    soundfile.write(silent, np.zeros(16000 * 2, dtype="int16"), 16000)
    window = open_window(qtbot, settings, model_dir=tiny_model_dir, journal_dir=tmp_path / "journal")
    window.sources.picker.add_file(str(silent))
    with qtbot.waitSignal(window.session_done, timeout=60000):
        assert window.start()
        assert window.view.placeholderText() == "Starting…"
    assert not window.text.final_transcript.words
    text = window.view.placeholderText()
    assert "Press Start" not in text and "No speech heard" in text, text


VOSK_NAME = "vosk-model-small-en-us-0.15"  # a catalogue name: "Download again" has a real entry


def _damaged_vosk_model():
    from tests.engine.recognizers.test_recognizers import write_tiny_vosk_model

    model = write_tiny_vosk_model(paths.recognizer_models_dir() / VOSK_NAME)
    final = model / "am" / "final.mdl"
    final.write_bytes(final.read_bytes()[: final.stat().st_size // 2])  # complete, but will not load
    return model


@pytest.mark.needs_espeak
def test_a_broken_vosk_model_captions_with_the_built_in_recognizer_and_offers_three_ways_out(
    data_dir, settings, qtbot, speech_wav, tiny_model_dir, tmp_path, monkeypatch
):
    import hashlib

    import app.main_window.model_offer as model_offer
    from app import settings as keys
    from engine.vosk_models.catalogue import CatalogueEntry
    from tests.model_server import Server, make_zip, model_files

    model = _damaged_vosk_model()
    window = open_window(qtbot, settings, model_dir=tiny_model_dir, journal_dir=tmp_path / "journal")
    final = play(window, qtbot, speech_wav)
    assert len(words_of(final)) >= 3  # captions ran, on the built-in recognizer (Whisper)
    assert window.banners.text("error") is None, window.banners.text("error")
    banner = window.banners.banners["model"]
    assert str(model) in banner.text and "built-in recognizer" in banner.text and "NAME" not in banner.text
    assert list(banner.buttons) == ["Use the built-in recognizer", "Download again", "Remove"]

    # Download again: the damaged folder is replaced by a fresh copy (from a real local server).
    server = Server()
    try:
        data = make_zip(model_files())
        server.files["fresh.zip"] = data
        md5 = hashlib.md5(data).hexdigest()
        url = server.url("fresh.zip")
        entry = CatalogueEntry(VOSK_NAME, "en-us", "English", url, len(data), "", md5, "0.15", "small")
        monkeypatch.setattr(model_offer, "catalogue_entry", lambda name: entry if name == VOSK_NAME else None)
        with qtbot.waitSignal(window.model_offer.installed, timeout=30000):
            banner.buttons["Download again"].click()
    finally:
        server.close()
    assert (model / "am" / "final.mdl").read_bytes() == model_files()["am/final.mdl"]

    # The fake fresh model cannot load either: the same banner again; Remove deletes it.
    qtbot.waitUntil(
        lambda: "Remove" in getattr(window.banners.banners.get("model"), "buttons", {}), timeout=30000
    )
    with qtbot.waitSignal(window.model_offer.removed, timeout=30000):
        window.banners.banners["model"].buttons["Remove"].click()
    assert not model.exists()

    # Use the built-in recognizer: remembered, so the banner does not come back.
    _damaged_vosk_model()
    window.bridge.forget_recognizers()
    with qtbot.waitSignal(window.models_ready, timeout=30000):
        window.preload()
    qtbot.waitUntil(
        lambda: "Use the built-in recognizer" in getattr(window.banners.banners.get("model"), "buttons", {}),
        timeout=30000,
    )
    window.banners.banners["model"].buttons["Use the built-in recognizer"].click()
    assert settings.get(keys.RECOGNIZER) == "whisper"
    qtbot.waitUntil(
        lambda: "Download again" not in getattr(window.banners.banners.get("model"), "buttons", {}),
        timeout=30000,
    )
    window.bridge.wait(30000)
    assert window.banners.text("model") is None  # the built-in Whisper was chosen: nothing to say
    QThreadPool.globalInstance().waitForDone(30000)
