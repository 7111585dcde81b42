"""The ingest event as the SDK takes it (the fields of POST /v1/usage-events, typed), the
per-event result reported to `on_result`, and the one JSON encoding of request bodies
(datetimes as ISO 8601 UTC, Decimal as an exact string)."""

from __future__ import annotations

import datetime as _dt
import json
import uuid
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Mapping, Optional, TypedDict, Union

from .errors import MarginalError

SpanKind = Literal["agent", "tool", "llm", "retrieval", "task"]
Timestamp = Union[str, _dt.datetime]


class UsageEvent(TypedDict, total=False):
    """One usage event: an LLM call (`model`, `input_tokens`, `output_tokens`) or a metered
    operation (`metric`, `unit`, `quantity`, and `model` or `provider`). `idempotency_key` is
    generated when absent; the service rejects unknown fields."""

    idempotency_key: str
    timestamp: Optional[Timestamp]
    user_id: Optional[str]
    model: Optional[str]
    provider: Optional[str]
    input_tokens: Optional[int]
    output_tokens: Optional[int]
    cache_creation_input_tokens: Optional[int]
    cache_read_input_tokens: Optional[int]
    reasoning_tokens: Optional[int]
    metric: Optional[str]
    unit: Optional[str]
    quantity: Optional[float]
    cost_override: Optional[Union[str, Decimal, int, float]]
    session_id: Optional[str]
    span_id: Optional[str]
    parent_span_id: Optional[str]
    span_name: Optional[str]
    span_kind: Optional[SpanKind]
    started_at: Optional[Timestamp]
    agent_id: Optional[str]
    workflow_id: Optional[str]
    feature: Optional[str]
    metadata: Optional[dict[str, Any]]


ResultStatus = Literal["accepted", "accepted_flagged", "rejected", "failed", "dropped"]


@dataclass
class EventResult:
    """What became of one tracked event. `accepted`/`accepted_flagged`: queued for good
    (`event_id`, `flag_reason`); `rejected`: the service refused it (`error`, e.g. a
    ValidationError naming the field or an InsufficientCreditsError); `failed`: retries ran out
    (`error` is the last one; sending it again later is safe); `dropped`: never sent, `reason`
    says why (`queue_full`, or `shutdown` when tracked after shutdown())."""

    idempotency_key: str
    status: ResultStatus
    event: dict[str, Any] = field(repr=False)
    event_id: Optional[str] = None
    flag_reason: Optional[str] = None
    error: Optional[MarginalError] = None
    reason: Optional[Literal["queue_full", "shutdown"]] = None

    @property
    def ok(self) -> bool:
        return self.status in ("accepted", "accepted_flagged")


def with_idempotency_key(event: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `event` that surely has an idempotency_key: the caller's, else a new UUID.
    Done once per event, before the first attempt, so every retry carries the same key."""
    copy = dict(event)
    if not copy.get("idempotency_key"):
        copy["idempotency_key"] = str(uuid.uuid4())
    return copy


def wire_value(value: Any) -> Any:
    """How a value travels (JSON bodies and query parameters alike): a datetime as ISO 8601
    (naive = UTC, written with Z), a date as YYYY-MM-DD, a Decimal as its exact string."""
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def _json_default(value: Any) -> Any:
    encoded = wire_value(value)
    if encoded is value:
        raise TypeError(f"{type(value).__name__} is not JSON serializable")
    return encoded


def encode_json(payload: Any) -> bytes:
    """The exact bytes sent (and signed)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=_json_default).encode("utf-8")
