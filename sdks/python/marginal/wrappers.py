"""Drop-in capture: wrap_openai / wrap_anthropic patch the create (and parse) methods of a
provider client instance so each call also tracks one usage event, and return the same client.

Invariants: the provider call itself is untouched (same arguments, same return value, same
exceptions, sync or async, streaming or not); capture work never raises into the caller (a
failure is logged); attribution is read when the call starts (wrap defaults, then the active
marginal.context()); a stream is recorded when it ends, from its usage chunk/event, by swapping
the stream object's own item iterator for an observing one, so its type stays the provider's.
Usage mapping is provider_usage's."""

from __future__ import annotations

import datetime as _dt
import functools
import inspect
import logging
from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Optional, Protocol, TypeVar

from .capture_context import current_context, merge_context
from .provider_usage import StreamUsage, anthropic_message_usage, openai_chat_usage, openai_responses_usage

logger = logging.getLogger("marginal")

C = TypeVar("C")

_MAPPERS: dict[str, Callable[[Any], Optional[dict[str, Any]]]] = {
    "chat.completions": openai_chat_usage,
    "responses": openai_responses_usage,
    "messages": anthropic_message_usage,
}
# (attribute path on the client, method, api)
_OPENAI_TARGETS = [
    ("chat.completions", "create", "chat.completions"),
    ("chat.completions", "parse", "chat.completions"),
    ("responses", "create", "responses"),
    ("responses", "parse", "responses"),
]
_ANTHROPIC_TARGETS = [("messages", "create", "messages")]


class Tracker(Protocol):
    def track(self, event: Mapping[str, Any]) -> Any: ...


def wrap_openai(client: C, marginal: Tracker, **attribution: Any) -> C:
    """Records one event per chat.completions / responses call of `client` (OpenAI or
    AsyncOpenAI). `attribution`: user_id, session_id, span_id, agent_id, feature, metadata, …
    Streamed chat completions carry usage only when the request sets
    stream_options={"include_usage": True}; without it nothing is recorded for that stream."""
    return _wrap(client, marginal, attribution, _OPENAI_TARGETS)


def wrap_anthropic(client: C, marginal: Tracker, **attribution: Any) -> C:
    """Records one event per messages.create call of `client` (Anthropic or AsyncAnthropic),
    streaming included."""
    return _wrap(client, marginal, attribution, _ANTHROPIC_TARGETS)


def _wrap(client: C, marginal: Tracker, attribution: Mapping[str, Any], targets: list[tuple[str, str, str]]) -> C:
    defaults = merge_context({}, attribution)
    for path, method, api in targets:
        resource: Any = client
        for name in path.split("."):
            resource = getattr(resource, name, None)
        original = getattr(resource, method, None) if resource is not None else None
        if original is None or getattr(original, "__marginal_wrapped__", False):
            continue
        setattr(resource, method, _capturing(original, api, marginal, defaults))
    return client


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _capturing(original: Callable[..., Any], api: str, marginal: Tracker, defaults: Mapping[str, Any]) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        record = _recorder(marginal, defaults)
        result = original(*args, **kwargs)
        streaming = bool(kwargs.get("stream"))
        if inspect.isawaitable(result):
            return _finish_async(result, api, streaming, record)
        return _observe(result, api, streaming, record)

    call.__marginal_wrapped__ = True  # type: ignore[attr-defined]
    return call


async def _finish_async(awaitable: Any, api: str, streaming: bool, record: Callable[[Optional[dict[str, Any]]], None]) -> Any:
    return _observe(await awaitable, api, streaming, record)


def _recorder(marginal: Tracker, defaults: Mapping[str, Any]) -> Callable[[Optional[dict[str, Any]]], None]:
    """Reads the attribution now (call start); the returned function tracks the event later."""
    try:
        attribution = merge_context(defaults, current_context())
    except Exception:
        logger.exception("marginal: reading the capture context failed")
        attribution = dict(defaults)
    started_at = _now()

    def record(fields: Optional[dict[str, Any]]) -> None:
        if fields is None:
            logger.debug("marginal: the provider answer carried no usage; nothing recorded")
            return
        event = {k: v for k, v in attribution.items() if v is not None}
        event.update(fields)
        event["started_at"] = started_at
        event["timestamp"] = _now()
        marginal.track(event)

    return record


def _observe(result: Any, api: str, streaming: bool, record: Callable[[Optional[dict[str, Any]]], None]) -> Any:
    try:
        if streaming:
            _observe_stream(result, api, record)
        else:
            record(_MAPPERS[api](result))
    except Exception:
        logger.exception("marginal: capturing usage failed; the provider call is unaffected")
    return result


def _observe_stream(stream: Any, api: str, record: Callable[[Optional[dict[str, Any]]], None]) -> None:
    usage = StreamUsage(api)
    inner = stream._iterator  # the provider Stream/AsyncStream's item iterator
    if hasattr(inner, "__anext__"):
        stream._iterator = _observe_async_items(inner, usage, record)
    else:
        stream._iterator = _observe_items(inner, usage, record)


def _fold(usage: StreamUsage, item: Any) -> None:
    try:
        usage.observe(item)
    except Exception:
        logger.exception("marginal: reading a stream item's usage failed")


def _settle(usage: StreamUsage, record: Callable[[Optional[dict[str, Any]]], None]) -> None:
    try:
        record(usage.fields())
    except Exception:
        logger.exception("marginal: recording a stream's usage failed")


def _observe_items(inner: Iterator[Any], usage: StreamUsage, record: Callable[[Optional[dict[str, Any]]], None]) -> Iterator[Any]:
    try:
        for item in inner:
            _fold(usage, item)
            yield item
    finally:
        _settle(usage, record)


async def _observe_async_items(
    inner: AsyncIterator[Any], usage: StreamUsage, record: Callable[[Optional[dict[str, Any]]], None]
) -> AsyncIterator[Any]:
    try:
        async for item in inner:
            _fold(usage, item)
            yield item
    finally:
        _settle(usage, record)
