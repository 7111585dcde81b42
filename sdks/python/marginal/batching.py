"""The bounded queue behind track() and its background flusher thread.

track() only copies the event into a deque under a lock (no I/O, no JSON) and returns.
`max_concurrent_requests` daemon threads (default 2: one batch is encoded and sent while the service
answers another) each take up to `batch_size` events when that many are queued, or when the oldest
has waited `flush_interval` seconds, or when flush() asks, and hands them to `deliver`, which
returns one result per event (retries happen inside it). Invariant: every event accepted into
the queue gets exactly one result, and `settled` counts them, so flush() waits for
settled ≥ the count queued when it was called. A full queue drops the new event and reports it."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import Any, Callable, Optional, Sequence

from .errors import MarginalConfigError, MarginalError
from .events import EventResult

logger = logging.getLogger("marginal")

Deliver = Callable[[Sequence[dict[str, Any]]], list[EventResult]]
OnResult = Callable[[EventResult], None]


class Batcher:
    def __init__(
        self,
        deliver: Deliver,
        on_result: Optional[OnResult],
        batch_size: int = 500,
        flush_interval: float = 1.0,
        max_queue_size: int = 10_000,
        max_concurrent_requests: int = 2,
    ) -> None:
        if max_concurrent_requests < 1:
            raise MarginalConfigError("max_concurrent_requests must be at least 1")
        if batch_size < 1 or batch_size > 1000:
            raise MarginalConfigError("batch_size must be 1 to 1000 (the service's batch limit)")
        self._deliver = deliver
        self._on_result = on_result
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.max_queue_size = max_queue_size
        self._queue: deque[dict[str, Any]] = deque()
        self._cond = threading.Condition()
        self._oldest_at = 0.0
        self._queued_total = 0
        self._settled = 0
        self._flush_until = 0  # send partial batches until this many are settled
        self._stopping = False
        self.max_concurrent_requests = max_concurrent_requests
        self._threads: list[threading.Thread] = []
        self.dropped = 0
        self._last_drop_warning = 0.0
        # Several flusher threads (and track() on a drop) report; the caller's callback sees one at a time.
        self._report_lock = threading.RLock()  # re-entrant: on_result may call track(), which may drop

    def enqueue(self, event: dict[str, Any]) -> bool:
        with self._cond:
            size = len(self._queue)
            dropped = "shutdown" if self._stopping else "queue_full" if size >= self.max_queue_size else None
            if dropped:
                self.dropped += 1
            else:
                self._queue.append(event)
                self._queued_total += 1
                if size == 0:
                    self._oldest_at = time.monotonic()
                    self._start_or_wake()
                elif size + 1 == self.batch_size:
                    self._cond.notify()
        if dropped:
            self._report_drop(event, dropped)
        return not dropped

    def _start_or_wake(self) -> None:
        if not self._threads:
            for n in range(self.max_concurrent_requests):
                thread = threading.Thread(target=self._run, name=f"marginal-flusher-{n}", daemon=True)
                thread.start()
                self._threads.append(thread)
        else:
            self._cond.notify()

    def _report_drop(self, event: dict[str, Any], reason: Any) -> None:
        now = time.monotonic()
        if now - self._last_drop_warning > 10:
            self._last_drop_warning = now
            logger.warning("marginal: dropping events (%s; queue bound %d); %d dropped so far", reason, self.max_queue_size, self.dropped)
        self._report([EventResult(idempotency_key=event["idempotency_key"], status="dropped", event=event, reason=reason)])

    def _run(self) -> None:
        while True:
            batch = self._next_batch()
            if batch is None:
                return
            try:
                results = self._deliver(batch)
            except Exception as err:  # a bug in delivery must not lose the count flush() waits on
                logger.exception("marginal: delivering a batch failed")
                error = MarginalError(str(err), code="DELIVERY_FAILED")
                results = [EventResult(idempotency_key=e["idempotency_key"], status="failed", event=e, error=error) for e in batch]
            self._report(results)
            with self._cond:
                self._settled += len(batch)
                self._cond.notify_all()

    def _next_batch(self) -> Optional[list[dict[str, Any]]]:
        """Waits until a batch is due (full, old enough, flush or shutdown asked); None = stop."""
        with self._cond:
            while True:
                size = len(self._queue)
                if size == 0:
                    if self._stopping:
                        return None
                    self._cond.wait()
                    continue
                urgent = self._stopping or self._flush_until > self._settled
                wait = self._oldest_at + self.flush_interval - time.monotonic()
                if size >= self.batch_size or urgent or wait <= 0:
                    take = min(size, self.batch_size)
                    batch = [self._queue.popleft() for _ in range(take)]
                    self._oldest_at = time.monotonic()
                    if len(self._queue) >= self.batch_size or (urgent and self._queue):
                        # enqueue() wakes one sender per batch it fills; what piled up while
                        # that sender was waking is another sender's to take now.
                        self._cond.notify()
                    return batch
                self._cond.wait(wait)

    def _report(self, results: list[EventResult]) -> None:
        if self._on_result is None:
            return
        with self._report_lock:
            for result in results:
                try:
                    self._on_result(result)
                except Exception:
                    logger.exception("marginal: on_result raised")

    @property
    def pending(self) -> int:
        """Events queued or in flight, not yet answered."""
        with self._cond:
            return self._queued_total - self._settled

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits until every event queued before this call has its result; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            target = self._queued_total
            self._flush_until = max(self._flush_until, target)
            self._cond.notify_all()
            while self._settled < target:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def shutdown(self, timeout: Optional[float] = None) -> bool:
        """Flushes, then stops the threads; later events are dropped (reason `shutdown`)."""
        done = self.flush(timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            threads = list(self._threads)
        if done:
            for thread in threads:
                thread.join(timeout)
        return done
