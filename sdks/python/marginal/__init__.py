"""Marginal's Python SDK: send usage events (track/send, signed and batched), read costs and
margins (typed methods), and capture OpenAI and Anthropic calls without event code. The same
concepts and names as the TypeScript SDK (@marginal/sdk), in snake_case."""

from .capture_context import current_context, with_context
from .client import AsyncMarginal, Marginal
from .errors import (
    AuthenticationError,
    DateRangeTooLargeError,
    InsufficientCreditsError,
    MarginalApiError,
    MarginalConfigError,
    MarginalConnectionError,
    MarginalError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    SignatureError,
    ValidationError,
)
from .events import EventResult, UsageEvent
from .provider_usage import from_anthropic_message, from_openai_chat_completion, from_openai_response
from .reads import READ_ENDPOINTS
from .retry import RetryPolicy
from .signing import sign, signature_headers
from .wrappers import wrap_anthropic, wrap_openai

__all__ = [
    "READ_ENDPOINTS",
    "AsyncMarginal",
    "AuthenticationError",
    "DateRangeTooLargeError",
    "EventResult",
    "InsufficientCreditsError",
    "Marginal",
    "MarginalApiError",
    "MarginalConfigError",
    "MarginalConnectionError",
    "MarginalError",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "SignatureError",
    "UsageEvent",
    "ValidationError",
    "current_context",
    "from_anthropic_message",
    "from_openai_chat_completion",
    "from_openai_response",
    "sign",
    "signature_headers",
    "with_context",
    "wrap_anthropic",
    "wrap_openai",
]
