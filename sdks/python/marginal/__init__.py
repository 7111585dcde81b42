"""Marginal's Python SDK: send usage events (track/send, signed and batched), read costs and
margins (typed methods), and capture OpenAI and Anthropic calls without event code."""

from .capture_context import context, current_context
from .client import AsyncMarginal, Marginal
from .errors import (
    APIConnectionError,
    AuthenticationError,
    InsufficientCreditsError,
    MarginalError,
    NotFoundError,
    PermissionDeniedError,
    QueueFullError,
    RateLimitError,
    ServerError,
    SignatureError,
    UnprocessableError,
    ValidationError,
)
from .events import EventResult, UsageEvent
from .retry import RetryPolicy
from .signing import sign_payload
from .wrappers import wrap_anthropic, wrap_openai

__all__ = [
    "APIConnectionError",
    "AsyncMarginal",
    "AuthenticationError",
    "EventResult",
    "InsufficientCreditsError",
    "Marginal",
    "MarginalError",
    "NotFoundError",
    "PermissionDeniedError",
    "QueueFullError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "SignatureError",
    "UnprocessableError",
    "UsageEvent",
    "ValidationError",
    "context",
    "current_context",
    "sign_payload",
    "wrap_anthropic",
    "wrap_openai",
]
