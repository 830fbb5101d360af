"""The cyclic collector runs on the UI thread only: a Qt object in a reference cycle is freed
there, between events, never by an allocation on a worker thread."""

import gc
import threading
import weakref

import pytest
from PySide6.QtCore import QObject

from app.garbage_collection import MainThreadCollector

pytestmark = [pytest.mark.gui]


class Cyclic(QObject):
    def __init__(self):
        super().__init__()
        self.me = self  # a reference cycle: only the cyclic collector frees it


def churn() -> None:
    # Enough container allocations to cross every generation's threshold many times over.
    for _ in range(200_000):
        a = []
        a.append(a)


def test_cyclic_qt_garbage_is_freed_on_the_ui_thread_only(qtbot):
    gc.enable()  # as a program starts
    collector = MainThreadCollector(interval_ms=20)
    try:
        assert not gc.isenabled()
        freed_on = []
        obj = Cyclic()
        weakref.finalize(obj, lambda: freed_on.append(threading.get_ident()))
        del obj
        worker = threading.Thread(target=churn)
        worker.start()
        worker.join()
        assert freed_on == []  # a worker's allocations collected nothing
        qtbot.waitUntil(lambda: bool(freed_on), timeout=10000)
        assert freed_on == [threading.get_ident()]
        assert sum(collector.collections) >= 1
    finally:
        collector.stop()
    assert gc.isenabled()  # stop() gives automatic collection back
    gc.disable()  # as the test runner keeps it during Qt tests


def test_a_collector_started_with_collection_off_leaves_it_off(qtbot):
    gc.disable()
    collector = MainThreadCollector()
    collector.stop()
    assert not gc.isenabled()
