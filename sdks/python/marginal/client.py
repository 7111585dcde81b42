"""The two clients. `Marginal` (sync) and `AsyncMarginal` (asyncio) share the same concepts:
track() queues (returns at once), send() posts one event and returns the ingest response,
flush()/shutdown(), and the typed read methods of reads.py.

Data path of track(): caller → Batcher deque (lock, no I/O) → flusher thread → deliver_batch →
SyncTransport → POST /v1/usage-events/batch → on_result. Both clients deliver tracked events
from that thread with a sync httpx client: it keeps sending while an event loop is blocked and
at interpreter exit, when no loop runs; AsyncMarginal's own requests (send, reads) use
httpx.AsyncClient on the caller's loop."""

from __future__ import annotations

import asyncio
import atexit
from typing import Any, Callable, Mapping, Optional, Sequence

import httpx

from . import models
from .batching import Batcher, OnResult
from .config import Credentials, require_signing_secret, resolve_credentials
from .delivery import BATCH_PATH, deliver_batch
from .events import EventResult, UsageEvent, with_idempotency_key
from .reads import AsyncReadMethods, ReadMethods
from .retry import RetryPolicy
from .transport import AsyncTransport, SyncTransport

EVENT_PATH = "/usage-events"


# The budget check (alerts/budgets on the server); answered from its running spend, fast enough per call.
BUDGET_CHECK_PATH = "/budgets/check"


class _Tracking:
    """track()/flush state shared by both clients: the batcher and its own sync transport."""

    _batcher: Batcher

    def _init_tracking(
        self,
        creds: Credentials,
        retry: RetryPolicy,
        timeout: float,
        on_result: Optional[OnResult],
        batch_size: int,
        flush_interval: float,
        max_queue_size: int,
        max_concurrent_requests: int,
        flush_on_exit: bool,
    ) -> None:
        self._delivery = SyncTransport(creds, retry, timeout)
        self._creds = creds
        self._can_sign = bool(creds.signing_secret)
        delivery = self._delivery

        def deliver(events: Sequence[dict[str, Any]]) -> list[EventResult]:
            return deliver_batch(
                lambda batch: delivery.post_signed_once(BATCH_PATH, {"events": list(batch)}), events, retry, delivery.sleep
            )

        self._batcher = Batcher(deliver, on_result, batch_size, flush_interval, max_queue_size, max_concurrent_requests)
        # At interpreter exit, send what is queued (a few seconds at most). The hook holds the
        # batcher, not the client: events queued by a discarded client still go out.
        batcher = self._batcher

        def at_exit() -> None:
            batcher.shutdown(5.0)
            delivery.close()

        self._atexit = at_exit
        if flush_on_exit:
            atexit.register(at_exit)

    def track(self, event: UsageEvent | Mapping[str, Any]) -> Optional[str]:
        """Queues one event and returns at once: its idempotency key (generated when the event
        has none), or None when it was dropped (queue full, or after shutdown): reported to
        on_result as `dropped` and counted in `dropped_count`. Raises MarginalConfigError at
        once when the client has no signing secret (every send would fail)."""
        if not self._can_sign:
            require_signing_secret(self._creds)
        prepared = with_idempotency_key(event)
        return prepared["idempotency_key"] if self._batcher.enqueue(prepared) else None

    @property
    def dropped_count(self) -> int:
        """Events track() dropped (queue full, or tracked after shutdown)."""
        return self._batcher.dropped

    @property
    def pending_count(self) -> int:
        """Events queued or in flight, not yet answered."""
        return self._batcher.pending

    def _flush_tracking(self, timeout: Optional[float]) -> bool:
        return self._batcher.flush(timeout)

    def _shutdown_tracking(self, timeout: Optional[float]) -> bool:
        atexit.unregister(self._atexit)
        done = self._batcher.shutdown(timeout)
        self._delivery.close()
        return done


class Marginal(ReadMethods, _Tracking):
    """Sync client. `api_key`, `signing_secret` and `base_url` (the server's origin, default
    http://127.0.0.1:8080) fall back to MARGINAL_API_KEY, MARGINAL_SIGNING_SECRET and
    MARGINAL_BASE_URL. Tracked events go in batches of `batch_size` or every `flush_interval`
    seconds, at most `max_concurrent_requests` batches at a time; each one's outcome goes to `on_result`
    (called on a flusher thread, one result at a time)."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        signing_secret: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        on_result: Optional[Callable[[EventResult], None]] = None,
        batch_size: int = 500,
        flush_interval: float = 1.0,
        max_queue_size: int = 10_000,
        max_concurrent_requests: int = 2,
        flush_on_exit: bool = True,
        timeout: float = 10.0,
        retry: RetryPolicy = RetryPolicy(),
        http_client: Optional[httpx.Client] = None,
    ) -> None:
        creds = resolve_credentials(api_key, signing_secret, base_url)
        self._transport = SyncTransport(creds, retry, timeout, http_client)
        self._init_tracking(creds, retry, timeout, on_result, batch_size, flush_interval, max_queue_size, max_concurrent_requests, flush_on_exit)

    def send(self, event: UsageEvent | Mapping[str, Any]) -> models.IngestResponse:
        """Posts one event now (retrying with the same idempotency key) and returns the 202 body.
        Raises InsufficientCreditsError on 402, ValidationError on 400, and so on."""
        return models.IngestResponse.model_validate(self._transport.post_signed(EVENT_PATH, with_idempotency_key(event)))

    def budget_allows(self, user_id: str) -> bool:
        """Whether the end user (the external `user_id` sent on events) may spend now: False when
        a budget covering them (the organization's, theirs, or each end user's) is exhausted in
        its current period. One GET /v1/budgets/check (key with costs:read); call it before a
        model call to enforce budgets."""
        return bool(self._transport.get(BUDGET_CHECK_PATH, {"user_id": user_id})["allowed"])

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits until every event tracked so far is answered; False when `timeout` ran out."""
        return self._flush_tracking(timeout)

    def shutdown(self, timeout: Optional[float] = None) -> bool:
        """Flushes, stops the flusher and closes connections. Runs at interpreter exit too."""
        done = self._shutdown_tracking(timeout)
        self._transport.close()
        return done

    def __enter__(self) -> "Marginal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


class AsyncMarginal(AsyncReadMethods, _Tracking):
    """Asyncio client: the same options as Marginal; send(), flush(), shutdown() and the read
    methods are coroutines, track() stays a plain non-blocking call."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        signing_secret: Optional[str] = None,
        base_url: Optional[str] = None,
        *,
        on_result: Optional[Callable[[EventResult], None]] = None,
        batch_size: int = 500,
        flush_interval: float = 1.0,
        max_queue_size: int = 10_000,
        max_concurrent_requests: int = 2,
        flush_on_exit: bool = True,
        timeout: float = 10.0,
        retry: RetryPolicy = RetryPolicy(),
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        creds = resolve_credentials(api_key, signing_secret, base_url)
        self._transport = AsyncTransport(creds, retry, timeout, http_client)
        self._init_tracking(creds, retry, timeout, on_result, batch_size, flush_interval, max_queue_size, max_concurrent_requests, flush_on_exit)

    async def send(self, event: UsageEvent | Mapping[str, Any]) -> models.IngestResponse:
        """Posts one event now (retrying with the same idempotency key) and returns the 202 body."""
        return models.IngestResponse.model_validate(await self._transport.post_signed(EVENT_PATH, with_idempotency_key(event)))

    async def budget_allows(self, user_id: str) -> bool:
        """Marginal.budget_allows, awaited."""
        return bool((await self._transport.get(BUDGET_CHECK_PATH, {"user_id": user_id}))["allowed"])

    async def flush(self, timeout: Optional[float] = None) -> bool:
        """Waits (off the loop) until every event tracked so far is answered."""
        return await asyncio.to_thread(self._flush_tracking, timeout)

    async def shutdown(self, timeout: Optional[float] = None) -> bool:
        done = await asyncio.to_thread(self._shutdown_tracking, timeout)
        await self._transport.aclose()
        return done

    async def __aenter__(self) -> "AsyncMarginal":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.shutdown()
