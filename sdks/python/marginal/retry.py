"""When to retry a request and how long to wait: exponential backoff with full jitter, the
server's Retry-After honoured on 429. Retried: network errors, timeouts, 429 and 5xx; never any
other 4xx (the same request would fail the same way). Pure: the caller sleeps."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Optional

from .errors import MarginalConnectionError, MarginalError, RateLimitError, ServerError


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 8
    """Attempts after the first; then the last error is reported."""
    initial_delay: float = 0.25
    """Seconds before the first retry's jitter."""
    max_delay: float = 20.0
    """Cap of one wait, Retry-After included."""

    def should_retry(self, error: MarginalError, attempt: int) -> bool:
        """`attempt` counts the attempts made so far (1 after the first failure)."""
        return attempt <= self.max_retries and is_retryable(error)

    def delay(self, error: MarginalError, attempt: int, rng: random.Random = random._inst) -> float:  # type: ignore[attr-defined]
        """Seconds to wait before attempt `attempt + 1`: the server's Retry-After when it gave
        one, else a uniform draw in [0, base * 2^(attempt-1)] (full jitter), both capped."""
        if isinstance(error, RateLimitError) and error.retry_after is not None:
            return min(error.retry_after, self.max_delay)
        ceiling = min(self.max_delay, self.initial_delay * (2 ** (attempt - 1)))
        return rng.uniform(0, ceiling)


def is_retryable(error: Optional[MarginalError]) -> bool:
    return isinstance(error, (MarginalConnectionError, RateLimitError, ServerError))
