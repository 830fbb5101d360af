import logging

from engine.fanout import FanOut


def test_every_subscriber_gets_each_batch_in_order_and_a_broken_one_is_skipped(caplog):
    fanout, got = FanOut("test sink"), []

    def broken(events):
        raise RuntimeError("sink down")

    fanout.subscribe(lambda events: got.append(("a", events)))
    fanout.subscribe(broken)
    fanout.subscribe(lambda events: got.append(("b", events)))
    with caplog.at_level(logging.ERROR):
        fanout.publish([1])
        fanout.unsubscribe(broken)
        fanout.publish([2])
    assert got == [("a", [1]), ("b", [1]), ("a", [2]), ("b", [2])]
    assert sum("test sink failed" in r.getMessage() for r in caplog.records) == 1


def test_a_subscriber_may_subscribe_another_from_its_callback():
    fanout, got = FanOut(), []
    fanout.subscribe(lambda events: fanout.subscribe(lambda e: got.append(e)))
    fanout.publish(["first"])  # the new subscriber joins for the next batch, not this one
    fanout.publish(["second"])
    assert got == [["second"]]
