"""Per-call attribution for the provider wrappers, carried in a contextvar so it follows
threads' and asyncio tasks' own contexts:

    with marginal.with_context(user_id="customer_42", feature="search", metadata={"team": "core"}):
        client.chat.completions.create(...)

Nested contexts override field by field; `metadata` dicts are merged, inner keys winning."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator, Mapping

CONTEXT_FIELDS = frozenset(
    {
        "user_id", "session_id", "span_id", "parent_span_id", "span_name", "span_kind",
        "agent_id", "workflow_id", "feature", "metadata",
    }
)

_current: ContextVar[Mapping[str, Any]] = ContextVar("marginal_capture_context", default={})


def merge_context(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`base` with `overrides` applied; unknown fields raise TypeError."""
    unknown = set(overrides) - CONTEXT_FIELDS
    if unknown:
        raise TypeError(f"unknown context field(s): {', '.join(sorted(unknown))}")
    merged = dict(base)
    for key, value in overrides.items():
        if key == "metadata" and value is not None:
            merged["metadata"] = {**(base.get("metadata") or {}), **value}
        else:
            merged[key] = value
    return merged


@contextmanager
def with_context(**overrides: Any) -> Iterator[dict[str, Any]]:
    """Attribution for every wrapped provider call made inside the block."""
    token = _current.set(merge_context(_current.get(), overrides))
    try:
        yield dict(_current.get())
    finally:
        _current.reset(token)


def current_context() -> dict[str, Any]:
    return dict(_current.get())
