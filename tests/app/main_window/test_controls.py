"""The captions window's session clock: it counts only while captioning runs."""

from PySide6.QtWidgets import QLabel

from app.main_window.controls import ElapsedClock


def test_the_clock_counts_runs_and_skips_pauses(qtbot):
    clock = ElapsedClock()
    qtbot.addWidget(clock)
    assert clock.text() == "0:00:00" and clock.accessibleName() == "Elapsed time"
    clock.run()
    qtbot.waitUntil(lambda: clock.text() == "0:00:01", timeout=3000)
    clock.halt()  # paused: the time stands still
    frozen = clock.text()
    qtbot.wait(1200)
    assert clock.text() == frozen
    clock.run()  # resumed: counts on from where it stood
    qtbot.waitUntil(lambda: clock.text() == "0:00:02", timeout=3000)
    clock.halt()
    clock.reset()  # a new session starts from zero
    clock.run()
    assert clock.text() == "0:00:00"
    clock.halt()


def test_the_punctuation_control_says_who_punctuates_in_plain_words(qtbot):
    """Not "marks: Whisper's own": a newcomer reads who puts in the punctuation."""
    from app.main_window.controls import LatencyControl, punctuation_by
    from engine import DecoderSettings, LatencyMap

    defaults = DecoderSettings()
    control = LatencyControl(LatencyMap.for_model(None, defaults.threshold, defaults.l_max), 50)
    qtbot.addWidget(control)
    control.show()

    def shown() -> str:
        return " ".join(label.text() for label in control.findChildren(QLabel) if label.isVisible())

    assert "punctuation by livecap" in shown() and control.slider.isEnabled()
    assert "punctuation by livecap" in control.slider.accessibleDescription()
    control.show_marks_by_recognizer(punctuation_by("Whisper"), "Whisper writes its own punctuation.")
    assert "punctuation by Whisper" in shown() and "livecap" not in shown()
    assert not control.slider.isEnabled()
    control.show_marks_by_recognizer(None)  # livecap's model marks the words again
    assert "punctuation by livecap" in shown() and control.slider.isEnabled()
