"""The queue behind track(): bounded, batched by size and time, flush waits for answers."""

import threading
import time

from marginal.batching import Batcher
from marginal.events import EventResult


def event(i):
    return {"idempotency_key": f"k{i}"}


class Recorder:
    def __init__(self, gate=None):
        self.batches = []
        self.gate = gate
        self.entered = threading.Event()

    def __call__(self, batch):
        self.entered.set()
        if self.gate:
            self.gate.wait()
        self.batches.append([e["idempotency_key"] for e in batch])
        return [EventResult(e["idempotency_key"], "accepted", e) for e in batch]


def test_batches_by_size_and_flush_waits_for_every_result():
    deliver, results = Recorder(), []
    b = Batcher(deliver, results.append, batch_size=10, flush_interval=60)
    for i in range(25):
        assert b.enqueue(event(i))
    assert b.flush(timeout=5)
    assert sorted(len(x) for x in deliver.batches) == [5, 10, 10]
    assert sorted(r.idempotency_key for r in results) == sorted(f"k{i}" for i in range(25))
    b.shutdown(5)


def test_a_partial_batch_goes_after_the_interval():
    deliver = Recorder()
    b = Batcher(deliver, None, batch_size=100, flush_interval=0.2)
    started = time.monotonic()
    b.enqueue(event(1))
    while not deliver.batches and time.monotonic() - started < 3:
        time.sleep(0.01)
    assert deliver.batches == [["k1"]]
    assert 0.15 <= time.monotonic() - started < 3
    b.shutdown(5)


def test_a_full_queue_drops_and_reports():
    gate = threading.Event()
    deliver, results = Recorder(gate), []
    b = Batcher(deliver, results.append, batch_size=2, flush_interval=60, max_queue_size=3, max_concurrent_requests=1)
    assert all(b.enqueue(event(i)) for i in range(2))  # a batch of 2 leaves for the (blocked) sender
    assert deliver.entered.wait(5)
    assert all(b.enqueue(event(i)) for i in range(2, 5))
    assert not b.enqueue(event(5)) and not b.enqueue(event(6))
    assert b.dropped == 2
    assert [(r.idempotency_key, r.status, r.reason) for r in results] == [("k5", "dropped", "queue_full"), ("k6", "dropped", "queue_full")]
    gate.set()
    assert b.flush(5)
    assert sorted(r.idempotency_key for r in results if r.status == "accepted") == [f"k{i}" for i in range(5)]
    b.shutdown(5)


def test_a_raising_callback_does_not_stop_delivery():
    deliver = Recorder()

    def boom(result):
        raise RuntimeError("caller bug")

    b = Batcher(deliver, boom, batch_size=1, flush_interval=60, max_concurrent_requests=1)
    b.enqueue(event(1))
    b.enqueue(event(2))
    assert b.flush(5) and deliver.batches == [["k1"], ["k2"]]
    b.shutdown(5)


def test_up_to_max_concurrent_requests_batches_are_sent_at_once():
    gate, inside = threading.Event(), []
    lock = threading.Lock()

    def deliver(batch):
        with lock:
            inside.append(len(batch))
        gate.wait()
        return [EventResult(e["idempotency_key"], "accepted", e) for e in batch]

    b = Batcher(deliver, None, batch_size=2, flush_interval=60, max_concurrent_requests=2)
    for i in range(6):
        b.enqueue(event(i))
    deadline = time.monotonic() + 5
    while len(inside) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.1)
    assert inside == [2, 2]  # two batches in flight, the third waits
    gate.set()
    assert b.flush(5) and inside == [2, 2, 2]
    b.shutdown(5)


def test_events_tracked_after_shutdown_are_dropped_with_that_reason():
    results = []
    b = Batcher(Recorder(), results.append, batch_size=10, flush_interval=60)
    b.enqueue(event(1))
    assert b.shutdown(5)
    assert not b.enqueue(event(2))
    assert [(r.idempotency_key, r.status, r.reason) for r in results] == [("k1", "accepted", None), ("k2", "dropped", "shutdown")]


def test_a_backlog_wakes_every_idle_sender():
    # Six events queued while both senders sleep: the first one up takes a batch and must wake
    # the other for the rest, rather than leave it asleep until the flush interval.
    gate, inside = threading.Event(), []
    lock = threading.Lock()

    def deliver(batch):
        with lock:
            inside.append(len(batch))
        gate.wait()
        return [EventResult(e["idempotency_key"], "accepted", e) for e in batch]

    b = Batcher(deliver, None, batch_size=2, flush_interval=60, max_concurrent_requests=2)
    b.enqueue(event(0))
    time.sleep(0.2)  # both senders now wait on the interval
    with b._cond:  # the caller fills the queue before any sender runs again
        for i in range(1, 6):
            b._queue.append(event(i))
            b._queued_total += 1
        b._cond.notify()  # what enqueue() does when a batch fills
    deadline = time.monotonic() + 5
    while len(inside) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert inside == [2, 2]
    gate.set()
    assert b.flush(5)
    b.shutdown(5)
