"""The one mechanism for work off the UI thread: a Job's signals, and a JobRunner that runs
jobs serially (in order, one at a time) or on the shared pool, cancels them and forgets them."""

import threading
import time

import pytest

from app.workers.jobs import Job, JobCancelled, JobRunner, cancellable


def test_a_job_reports_progress_then_its_result_then_finished(qtbot):
    seen = []

    def work(report, cancelled):
        for i in range(1, 4):
            report(i, 3)
        return "result"

    job = Job(work)
    job.progress.connect(lambda done, total: seen.append(("progress", done, total)))
    # In the outcome's slots the job has ended already; finished comes after all of them.
    job.done.connect(lambda result: seen.append(("done", result, job.running)))
    job.finished.connect(lambda: seen.append(("finished",)))
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.start()
    assert seen == [
        ("progress", 1, 3),
        ("progress", 2, 3),
        ("progress", 3, 3),
        ("done", "result", False),
        ("finished",),
    ]
    assert job.result == "result" and job.error is None and not job.was_cancelled


def test_a_failing_job_says_why_in_one_line(qtbot):
    def fail(report, cancelled):
        raise FileNotFoundError(2, "No such file or directory", "/nowhere/x.wav")

    job = Job(fail)
    with qtbot.waitSignal(job.failed, timeout=5000) as failed:
        job.start()
    assert failed.args == ["/nowhere/x.wav: No such file or directory"] and job.error == failed.args[0]
    qtbot.waitUntil(lambda: not job.running)
    assert job.result is None


def test_cancel_stops_the_work_at_its_next_progress_point(qtbot):
    started, steps = threading.Event(), []

    def work(report, cancelled):
        progress = cancellable(report, cancelled)
        started.set()
        for i in range(1000):
            steps.append(i)
            progress(i, 1000)
            time.sleep(0.005)
        return "all done"

    job = Job(work)
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.start()
        assert started.wait(5)
        job.cancel()
    assert job.was_cancelled and job.result is None and job.error is None and len(steps) < 1000


def test_a_serial_runner_never_lets_a_job_overtake_an_earlier_one(qtbot):
    runner = JobRunner(serial=True)
    log, lock = [], threading.Lock()

    def step(name, seconds):
        def work(report, cancelled):
            with lock:
                log.append(f"{name} begins")
            time.sleep(seconds)
            with lock:
                log.append(f"{name} ends")
            return name

        return work

    # A slow "start" then a quick "stop": on a shared pool the stop would end first.
    results = []
    runner.run(step("start", 0.3), results.append)
    runner.run(step("stop", 0.0), results.append)
    assert len(runner.jobs) == 2
    qtbot.waitUntil(lambda: len(results) == 2, timeout=5000)
    assert log == ["start begins", "start ends", "stop begins", "stop ends"]
    assert results == ["start", "stop"]
    qtbot.waitUntil(lambda: runner.jobs == [], timeout=5000)  # finished jobs are let go
    assert runner.wait(1000)


def test_cancel_all_reaches_every_running_job(qtbot):
    runner = JobRunner()
    release = threading.Event()

    def work(report, cancelled):
        release.wait(5)
        if cancelled.is_set():
            raise JobCancelled()
        return "not cancelled"

    jobs = [runner.run(work) for _ in range(2)]
    cancelled = []
    for job in jobs:
        job.cancelled.connect(lambda: cancelled.append(True))
    runner.cancel_all()
    release.set()
    qtbot.waitUntil(lambda: len(cancelled) == 2, timeout=5000)
    assert all(job.was_cancelled for job in jobs)


@pytest.mark.parametrize("serial", [False, True])
def test_a_runner_connects_the_slots_before_the_job_starts(qtbot, serial):
    runner = JobRunner(serial=serial)
    got = []
    for _ in range(20):  # an instant job: its outcome must never slip past the connection
        runner.run(lambda report, cancelled: 1, got.append)
    qtbot.waitUntil(lambda: len(got) == 20, timeout=5000)
    assert got == [1] * 20
