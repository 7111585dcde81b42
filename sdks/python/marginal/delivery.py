"""Delivering one batch of tracked events through POST /v1/usage-events/batch until each event
has a final result. The whole request is retried on network errors, timeouts, 429 and 5xx;
after a 200, events whose own result is retryable (SERVICE_UNAVAILABLE) are sent again, alone.
Every attempt carries the events unchanged, so their idempotency keys make retries safe: an
event the service already took answers with the same event_id and spends no second credit."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Optional, Sequence

from .errors import MarginalError, ServerError, ValidationError, error_from_batch_item
from .events import EventResult, encode_json
from .retry import RetryPolicy, is_retryable

BATCH_PATH = "/usage-events/batch"

PostBatch = Callable[[Sequence[Mapping[str, Any]]], Any]
"""Sends {"events": [...]} once and returns the decoded 200 body; raises MarginalError otherwise."""


def deliver_batch(
    post_batch: PostBatch,
    events: Sequence[dict[str, Any]],
    policy: RetryPolicy,
    sleep: Callable[[float], None],
) -> list[EventResult]:
    results: list[Optional[EventResult]] = [None] * len(events)
    pending = list(range(len(events)))
    attempt = 0
    while pending:
        retry_error: Optional[MarginalError]
        try:
            items = _results_of(post_batch([events[i] for i in pending]), len(pending))
            retry_error, pending = _settle(events, pending, items, results)
        except MarginalError as error:
            retry_error = error
        except (TypeError, ValueError):
            # Some event holds a value JSON cannot carry: reject those alone, send the others.
            kept = _reject_unencodable(events, pending, results)
            if len(kept) == len(pending):
                raise  # not an encoding fault after all: the batcher reports the batch as failed
            pending = kept
            continue
        if not pending:
            break
        attempt += 1
        assert retry_error is not None
        if not policy.should_retry(retry_error, attempt):
            status = "failed" if is_retryable(retry_error) else "rejected"
            for i in pending:
                results[i] = _result(events[i], status, error=retry_error)
            break
        sleep(policy.delay(retry_error, attempt))
    return [r for r in results if r is not None]


def _reject_unencodable(events: Sequence[dict[str, Any]], pending: list[int], results: list[Optional[EventResult]]) -> list[int]:
    keep = []
    for i in pending:
        try:
            encode_json(events[i])
            keep.append(i)
        except (TypeError, ValueError) as err:
            error = ValidationError(f"the event cannot be sent as JSON: {err}", code="UNSERIALIZABLE_EVENT")
            results[i] = _result(events[i], "rejected", error=error)
    return keep


def _results_of(body: Any, expected: int) -> list[Mapping[str, Any]]:
    items = body.get("results") if isinstance(body, Mapping) else None
    if not isinstance(items, list) or len(items) != expected:
        # Not the service's answer (a proxy's page, a cut body): nothing is known, send again.
        raise ServerError("batch answer without one result per event", code="BAD_BATCH_ANSWER")
    return items


def _settle(
    events: Sequence[dict[str, Any]],
    pending: list[int],
    items: list[Mapping[str, Any]],
    results: list[Optional[EventResult]],
) -> tuple[Optional[MarginalError], list[int]]:
    """Records final results; returns the last retryable error and the events still to send."""
    again: list[int] = []
    last: Optional[MarginalError] = None
    for i, item in zip(pending, items):
        if isinstance(item.get("error"), Mapping):
            error = error_from_batch_item(item)
            if is_retryable(error):
                again.append(i)
                last = error
            else:
                results[i] = _result(events[i], "rejected", error=error)
        else:
            results[i] = _result(
                events[i],
                item.get("status", "accepted"),
                event_id=item.get("event_id"),
                flag_reason=item.get("flag_reason"),
            )
    return last, again


def _result(event: dict[str, Any], status: Any, **kwargs: Any) -> EventResult:
    return EventResult(idempotency_key=event["idempotency_key"], status=status, event=event, **kwargs)
