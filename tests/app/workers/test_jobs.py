"""The one mechanism for work off the UI thread: a Job's signals, and a JobRunner that runs
jobs serially (in order, one at a time) or on the shared pool, cancels them and forgets them."""

import threading
import time
import weakref

import pytest
import shiboken6
from PySide6.QtCore import QObject, Qt

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


def test_a_job_nobody_keeps_is_deleted_on_the_ui_thread_never_on_the_pool_thread(qtbot):
    """The lifetime rule: the pool thread never holds the last reference to a Job. If it did,
    Python would delete the Qt object on the pool thread while the UI thread still had its
    queued signals to deliver: a use-after-free that crashed the test suite (and the app)."""
    returned, deleted_on = threading.Event(), []
    ui_thread = threading.current_thread()

    def work(report, cancelled):
        report(1, 1)
        returned.set()
        return "result"

    job = Job(work)
    job.destroyed.connect(lambda: deleted_on.append(threading.current_thread()), Qt.DirectConnection)
    job.start()
    del job  # nobody on the UI thread keeps it: only what the job runner holds
    assert returned.wait(5)
    time.sleep(0.2)  # the pool thread has let its runnable go
    qtbot.waitUntil(lambda: bool(deleted_on), timeout=5000)
    assert deleted_on == [ui_thread]


def test_a_job_outlives_the_window_that_started_it_and_is_freed_on_the_ui_thread(qtbot):
    """A window closing mid-job deletes its runner: the function still runs to its end, its
    outcome reaches the slots still there, and the Job is freed on the UI thread afterwards,
    never by the closing window and never on the pool thread."""
    window = QObject()
    runner = JobRunner(window)
    release, reports, outcomes, deleted_on = threading.Event(), [], [], []

    def work(report, cancelled):
        release.wait(5)
        for i in range(200):
            report(i, 200)
            reports.append(i)
        return "result"

    job = runner.run(work, outcomes.append)
    job.destroyed.connect(lambda: deleted_on.append(threading.current_thread()), Qt.DirectConnection)
    job.finished.connect(lambda job=job: outcomes.append(("finished", job.result)))  # holds the Job
    del job, runner
    window.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(window), timeout=5000)
    release.set()
    qtbot.waitUntil(lambda: bool(deleted_on), timeout=5000)
    assert len(reports) == 200 and outcomes == ["result", ("finished", "result")]
    assert deleted_on == [threading.current_thread()]


def test_every_job_of_a_stress_run_is_delivered_once_and_let_go(qtbot):
    """Many short jobs on the shared pool, started and forgotten while others finish: each
    outcome arrives exactly once, and every Job is deleted on the UI thread."""
    runner = JobRunner()
    outcomes, deleted_on = [], []
    for i in range(200):
        job = runner.run(lambda report, cancelled, i=i: (report(i, 200), i)[1], outcomes.append)
        job.destroyed.connect(lambda: deleted_on.append(threading.current_thread()), Qt.DirectConnection)
        del job
    qtbot.waitUntil(lambda: len(deleted_on) == 200, timeout=10000)
    assert sorted(outcomes) == list(range(200)) and runner.jobs == []
    assert set(deleted_on) == {threading.current_thread()}


def test_a_job_ending_after_the_relay_was_freed_at_exit_is_dropped_not_raised(monkeypatch):
    """At exit Python frees the Qt objects, the relay among them; a pool thread that ends a job
    then has nowhere to post to. Its outcome is dropped: no traceback on the way out."""
    from app.workers import jobs

    monkeypatch.setattr(jobs, "_relay", jobs._UiThreadRelay())
    shiboken6.delete(jobs._relay)
    delivered, target = [], QObject()
    work = jobs._PoolWork(
        lambda report, cancelled: report(1, 1) or "result", threading.Event(), weakref.ref(target)
    )
    work.run()  # what the pool thread does; it raised "Signal source has been deleted" before
    jobs.call_on_ui_thread(target, "setObjectName", "late")
    jobs._post(lambda: delivered.append("ran"))
    assert work.returned.is_set() and delivered == [] and target.objectName() == ""
