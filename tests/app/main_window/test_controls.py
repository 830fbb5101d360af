"""The captions window's session clock: it counts only while captioning runs."""

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
