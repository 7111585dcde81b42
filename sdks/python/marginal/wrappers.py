"""Drop-in capture: wrap_openai / wrap_anthropic patch the create (and parse) methods of a
provider client instance (and Anthropic's messages.stream helper) so each call also tracks one usage
event, and return the same client.

Invariants: the provider call itself is untouched (same arguments, same return value, same
exceptions, sync or async, streaming or not); capture work never raises into the caller (a
failure goes to on_capture_error, by default a logged warning); attribution is read when the
call starts (wrap defaults, then the active marginal.with_context()); a stream is recorded when it ends, from its usage chunk/event, by swapping
the stream object's own item iterator for an observing one, so its type stays the provider's.
Usage mapping is provider_usage's."""

from __future__ import annotations

import datetime as _dt
import functools
import inspect
import logging
from typing import Any, AsyncIterator, Callable, Iterator, Mapping, Optional, Protocol, TypeVar

from .capture_context import current_context, merge_context
from .provider_usage import StreamUsage, from_anthropic_message, from_openai_chat_completion, from_openai_response

logger = logging.getLogger("marginal")

C = TypeVar("C")

_MAPPERS: dict[str, Callable[[Any], Optional[dict[str, Any]]]] = {
    "chat.completions": from_openai_chat_completion,
    "responses": from_openai_response,
    "messages": from_anthropic_message,
}
# (attribute path on the client, method, api)
_OPENAI_TARGETS = [
    ("chat.completions", "create", "chat.completions"),
    ("chat.completions", "parse", "chat.completions"),
    ("responses", "create", "responses"),
    ("responses", "parse", "responses"),
]
_ANTHROPIC_TARGETS = [("messages", "create", "messages"), ("messages", "stream", "messages")]
# Methods that return a stream manager (`with client.messages.stream(...) as stream:`) rather
# than a response or a stream.
_STREAM_HELPERS = {"stream"}


class Tracker(Protocol):
    def track(self, event: Mapping[str, Any]) -> Any: ...


OnCaptureError = Callable[[BaseException], None]


def _log_capture_error(error: BaseException) -> None:
    logger.warning("marginal: capturing usage failed (the provider call is unaffected): %r", error, exc_info=error)


def wrap_openai(client: C, marginal: Tracker, *, on_capture_error: Optional[OnCaptureError] = None, **attribution: Any) -> C:
    """Records one event per chat.completions / responses call of `client` (OpenAI or
    AsyncOpenAI). `attribution`: user_id, session_id, span_id, agent_id, feature, metadata, …
    Streamed chat completions carry usage only when the request sets
    stream_options={"include_usage": True}; without it nothing is recorded for that stream.
    `on_capture_error` hears of capture failures (default: a logged warning)."""
    return _wrap(client, marginal, attribution, _OPENAI_TARGETS, on_capture_error or _log_capture_error)


def wrap_anthropic(client: C, marginal: Tracker, *, on_capture_error: Optional[OnCaptureError] = None, **attribution: Any) -> C:
    """Records one event per messages.create or messages.stream call of `client` (Anthropic or
    AsyncAnthropic), streaming included."""
    return _wrap(client, marginal, attribution, _ANTHROPIC_TARGETS, on_capture_error or _log_capture_error)


def _wrap(
    client: C, marginal: Tracker, attribution: Mapping[str, Any], targets: list[tuple[str, str, str]], on_error: OnCaptureError
) -> C:
    defaults = merge_context({}, attribution)
    for path, method, api in targets:
        resource: Any = client
        for name in path.split("."):
            resource = getattr(resource, name, None)
        original = getattr(resource, method, None) if resource is not None else None
        if original is None or getattr(original, "__marginal_wrapped__", False):
            continue
        setattr(resource, method, _capturing(original, api, marginal, defaults, on_error, method in _STREAM_HELPERS))
    return client


def _capturing(
    original: Callable[..., Any],
    api: str,
    marginal: Tracker,
    defaults: Mapping[str, Any],
    on_error: OnCaptureError,
    stream_helper: bool,
) -> Callable[..., Any]:
    @functools.wraps(original)
    def call(*args: Any, **kwargs: Any) -> Any:
        capture = _Capture(api, marginal, defaults, on_error)
        result = original(*args, **kwargs)
        if stream_helper:
            capture.guard(lambda: capture.tap_manager(result))
            return result
        streaming = bool(kwargs.get("stream"))
        if inspect.isawaitable(result):
            return _observe_async(result, capture, streaming)
        return capture.observe(result, streaming)

    call.__marginal_wrapped__ = True  # type: ignore[attr-defined]
    return call


async def _observe_async(awaitable: Any, capture: "_Capture", streaming: bool) -> Any:
    return capture.observe(await awaitable, streaming)


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class _Capture:
    """One wrapped provider call: its attribution (read when the call starts) and the recording
    of its event. Every step runs under guard(), which hands a failure to on_error instead of
    raising."""

    def __init__(self, api: str, marginal: Tracker, defaults: Mapping[str, Any], on_error: OnCaptureError) -> None:
        self.api = api
        self.marginal = marginal
        self.on_error = on_error
        self.attribution = self.guard(lambda: merge_context(defaults, current_context())) or dict(defaults)
        self.started_at = _now()

    def guard(self, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except Exception as error:
            try:
                self.on_error(error)
            except Exception:
                pass
            return None

    def observe(self, result: Any, streaming: bool) -> Any:
        if streaming:
            self.guard(lambda: self._tap(result))
        else:
            self.guard(lambda: self.record(_MAPPERS[self.api](result)))
        return result

    def record(self, fields: Optional[dict[str, Any]]) -> None:
        if fields is None:
            logger.debug("marginal: the provider answer carried no usage; nothing recorded")
            return
        event = {k: v for k, v in self.attribution.items() if v is not None}
        event.update(fields)
        event["started_at"] = self.started_at
        event["timestamp"] = _now()
        self.marginal.track(event)

    def tap_manager(self, manager: Any) -> None:
        """A stream manager opens its raw provider stream on entry, through the request it holds
        (a callable, or an awaitable for async clients); that request is wrapped to tap it."""
        name = next(n for n in vars(manager) if n.endswith("__api_request"))
        request = getattr(manager, name)
        if inspect.isawaitable(request):
            setattr(manager, name, _observe_async(request, self, True))
        else:
            setattr(manager, name, lambda: self.observe(request(), True))

    def _tap(self, stream: Any) -> None:
        """Swaps the provider Stream/AsyncStream's own item iterator for an observing one."""
        usage = StreamUsage(self.api)
        inner = stream._iterator
        stream._iterator = _tap_async(inner, usage, self) if hasattr(inner, "__anext__") else _tap_sync(inner, usage, self)


def _tap_sync(inner: Iterator[Any], usage: StreamUsage, capture: _Capture) -> Iterator[Any]:
    try:
        for item in inner:
            capture.guard(lambda: usage.observe(item))
            yield item
    finally:
        capture.guard(lambda: capture.record(usage.fields()))


async def _tap_async(inner: AsyncIterator[Any], usage: StreamUsage, capture: _Capture) -> AsyncIterator[Any]:
    try:
        async for item in inner:
            capture.guard(lambda: usage.observe(item))
            yield item
    finally:
        capture.guard(lambda: capture.record(usage.fields()))
