"""Typed errors of the SDK: every API failure becomes a MarginalError subclass carrying the
envelope's `code`, `correlation_id` and `details`; `error_from_response` is the one mapping
from an HTTP answer (status, body, headers) to those classes."""

from __future__ import annotations

from typing import Any, Mapping, Optional


class MarginalError(Exception):
    """Base of every error the SDK raises or reports."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "UNKNOWN",
        status: Optional[int] = None,
        correlation_id: Optional[str] = None,
        details: Optional[Mapping[str, Any]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.correlation_id = correlation_id
        self.details: dict[str, Any] = dict(details or {})

    @property
    def field(self) -> Optional[str]:
        """The request field a validation error names (`details.field`), if any."""
        value = self.details.get("field")
        return value if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r})"


class MarginalConfigError(MarginalError, ValueError):
    """The client is missing something it needs (an API key; a signing secret to send events)."""


class MarginalApiError(MarginalError):
    """An error answer of the API: the spec's error envelope (or the flat signature body), or
    one event's error inside a batch answer (`status` None: the request itself succeeded)."""

    @property
    def retryable(self) -> bool:
        """Whether the same request may succeed later (the service's `details.retryable`, or by status)."""
        flag = self.details.get("retryable")
        if isinstance(flag, bool):
            return flag
        return self.status is not None and (self.status == 429 or self.status >= 500)


class ValidationError(MarginalApiError):
    """400: a parameter or event field is invalid; `field` names it."""


class AuthenticationError(MarginalApiError):
    """401: missing or invalid API key."""


class SignatureError(AuthenticationError):
    """401 with the flat body: missing or wrong X-Signature, or X-Timestamp too far off."""


class PermissionDeniedError(MarginalApiError):
    """403: the key lacks the endpoint's scope."""


class NotFoundError(MarginalApiError):
    """404: unknown end user, session, dimension or subscription."""


class InsufficientCreditsError(MarginalApiError):
    """402 on ingestion: no event credits left (or the subscription is inactive); nothing was
    queued, and retrying later with the same idempotency key is safe."""

    @property
    def action_hint(self) -> Optional[str]:
        value = self.details.get("actionHint")
        return value if isinstance(value, str) else None


class DateRangeTooLargeError(MarginalApiError):
    """422: a margin range longer than 12 months."""


class RateLimitError(MarginalApiError):
    """429: over the key's request rate; `retry_after` is the server's advice in seconds."""

    def __init__(self, message: str, *, retry_after: Optional[float] = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(MarginalApiError):
    """5xx, including 503 SERVICE_UNAVAILABLE (retryable)."""


class MarginalConnectionError(MarginalError):
    """The request did not get an answer: refused or dropped connection, or a timeout."""


_BY_STATUS: dict[int, type[MarginalApiError]] = {
    400: ValidationError,
    401: AuthenticationError,
    402: InsufficientCreditsError,
    403: PermissionDeniedError,
    404: NotFoundError,
    422: DateRangeTooLargeError,
    429: RateLimitError,
}

_BY_CODE: dict[str, type[MarginalApiError]] = {
    "VALIDATION_ERROR": ValidationError,
    "INSUFFICIENT_CREDITS": InsufficientCreditsError,
    "SUBSCRIPTION_INACTIVE": InsufficientCreditsError,
    "SERVICE_UNAVAILABLE": ServerError,
    "RATE_LIMIT_EXCEEDED": RateLimitError,
}


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After in seconds (the service sends delta-seconds); None when absent or unreadable."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def error_from_response(status: int, body: Any, headers: Optional[Mapping[str, str]] = None) -> MarginalApiError:
    """The typed error for a non-2xx answer. Reads the spec's envelope, or the flat
    {error, code} body of a signature failure; any other body keeps the status alone."""
    headers = headers or {}
    correlation_id = headers.get("x-correlation-id")
    code, message, details = f"HTTP_{status}", f"HTTP {status}", {}
    if isinstance(body, Mapping):
        err = body.get("error")
        if isinstance(err, Mapping):
            code = str(err.get("code", code))
            message = str(err.get("message", message))
            details = err.get("details") if isinstance(err.get("details"), Mapping) else {}
            correlation_id = err.get("correlationId", correlation_id)
        elif isinstance(err, str):
            code, message = str(body.get("code", code)), err
            if status == 401:
                return SignatureError(message, code=code, status=status, correlation_id=correlation_id)
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else MarginalApiError)
    kwargs: dict[str, Any] = dict(code=code, status=status, correlation_id=correlation_id, details=details)
    if cls is RateLimitError:
        return RateLimitError(message, retry_after=parse_retry_after(headers.get("retry-after")), **kwargs)
    return cls(message, **kwargs)


def error_from_batch_item(item: Mapping[str, Any]) -> MarginalApiError:
    """The typed error for one failed event of a batch answer ({"error": {code, message, details}})."""
    err = item.get("error") if isinstance(item.get("error"), Mapping) else {}
    code = str(err.get("code", "UNKNOWN"))
    details = err.get("details") if isinstance(err.get("details"), Mapping) else {}
    cls = _BY_CODE.get(code, MarginalApiError)
    return cls(str(err.get("message", code)), code=code, details=details)
