"""Provider usage → Marginal's disjoint token classes. Pure functions over the provider SDKs'
response objects or their JSON (both read through `_get`), no I/O.

OpenAI counts cached tokens inside the prompt and reasoning tokens inside the completion, so
input = prompt − cached, cache_read = cached, output = completion − reasoning, reasoning =
reasoning (chat completions: prompt/completion_tokens; Responses API: input/output_tokens).
Anthropic's input_tokens already exclude the cache, whose counts come as
cache_creation_input_tokens and cache_read_input_tokens. A class is present exactly when the
provider reported it as a number. `model` is the response's model, not the requested alias.
Streams: `StreamUsage` folds chunks/events into the same fields (sdks/test-vectors)."""

from __future__ import annotations

from typing import Any, Optional

Fields = dict[str, Any]


def _get(obj: Any, key: str) -> Any:
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    return getattr(obj, key, None)


def _count(value: Any) -> Optional[int]:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _openai_fields(model: Any, usage: Any, total_in: str, total_out: str, in_details: str, out_details: str) -> Optional[Fields]:
    prompt, completion = _count(_get(usage, total_in)), _count(_get(usage, total_out))
    if usage is None or prompt is None or completion is None:
        return None
    cached = _count(_get(_get(usage, in_details), "cached_tokens"))
    reasoning = _count(_get(_get(usage, out_details), "reasoning_tokens"))
    fields: Fields = {"provider": "openai", "model": model, "input_tokens": max(0, prompt - (cached or 0))}
    if cached is not None:
        fields["cache_read_input_tokens"] = cached
    fields["output_tokens"] = max(0, completion - (reasoning or 0))
    if reasoning is not None:
        fields["reasoning_tokens"] = reasoning
    return fields


def from_openai_chat_completion(completion: Any) -> Optional[Fields]:
    """A chat completion (or its final streamed chunk carrying `usage`) → event fields."""
    return _openai_fields(
        _get(completion, "model"), _get(completion, "usage"),
        "prompt_tokens", "completion_tokens", "prompt_tokens_details", "completion_tokens_details",
    )


def from_openai_response(response: Any) -> Optional[Fields]:
    """A Responses API response → event fields."""
    return _openai_fields(
        _get(response, "model"), _get(response, "usage"),
        "input_tokens", "output_tokens", "input_tokens_details", "output_tokens_details",
    )


_ANTHROPIC_CLASSES = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens")


def from_anthropic_message(message: Any) -> Optional[Fields]:
    """An Anthropic message → event fields."""
    return _anthropic_fields(_get(message, "model"), _anthropic_counts({}, _get(message, "usage")))


def _anthropic_counts(counts: dict[str, int], usage: Any) -> dict[str, int]:
    """`counts` with every class `usage` reports replaced (later values win)."""
    merged = dict(counts)
    for key in _ANTHROPIC_CLASSES:
        value = _count(_get(usage, key))
        if value is not None:
            merged[key] = value
    return merged


def _anthropic_fields(model: Any, counts: dict[str, int]) -> Optional[Fields]:
    if "input_tokens" not in counts or "output_tokens" not in counts:
        return None
    fields: Fields = {"provider": "anthropic", "model": model}
    fields.update((k, counts[k]) for k in _ANTHROPIC_CLASSES if k in counts)
    return fields


class StreamUsage:
    """Folds a provider stream, item by item, into event fields; `fields()` is None until the
    stream carried usage (an OpenAI chat stream does only with stream_options.include_usage)."""

    def __init__(self, api: str) -> None:
        if api not in ("chat.completions", "responses", "messages"):
            raise ValueError(f"unknown api {api}")
        self.api = api
        self._fields: Optional[Fields] = None
        self._model: Any = None
        self._counts: dict[str, int] = {}

    def observe(self, item: Any) -> None:
        if self.api == "chat.completions":
            if _get(item, "usage") is not None:
                self._fields = from_openai_chat_completion(item)
        elif self.api == "responses":
            # response.completed carries the final usage (incomplete and failed ones too).
            if _get(item, "type") in ("response.completed", "response.incomplete", "response.failed"):
                self._fields = from_openai_response(_get(item, "response"))
        else:
            kind = _get(item, "type")
            if kind == "message_start":
                message = _get(item, "message")
                self._model = _get(message, "model")
                self._counts = _anthropic_counts(self._counts, _get(message, "usage"))
            elif kind == "message_delta":
                self._counts = _anthropic_counts(self._counts, _get(item, "usage"))

    def fields(self) -> Optional[Fields]:
        if self.api == "messages":
            return _anthropic_fields(self._model, self._counts)
        return self._fields
