import random

from marginal.errors import MarginalConnectionError, MarginalError, RateLimitError, ServerError, ValidationError
from marginal.retry import RetryPolicy


def test_retryable_classes_only():
    policy = RetryPolicy(max_retries=3)
    assert policy.should_retry(MarginalConnectionError("x"), 1)
    assert policy.should_retry(ServerError("x", status=503), 3)
    assert policy.should_retry(RateLimitError("x", status=429), 1)
    assert not policy.should_retry(ServerError("x", status=503), 4)
    assert not policy.should_retry(ValidationError("x", status=400), 1)
    assert not policy.should_retry(MarginalError("x", status=409), 1)


def test_backoff_is_exponential_full_jitter_and_capped():
    policy = RetryPolicy(initial_delay=0.5, max_delay=3.0)
    rng = random.Random(7)
    for attempt, ceiling in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 3.0), (9, 3.0)]:
        draws = [policy.delay(ServerError("x"), attempt, rng) for _ in range(200)]
        assert all(0 <= d <= ceiling for d in draws)
        assert max(draws) > ceiling * 0.9  # the whole range is used (jitter, not a fixed step)


def test_retry_after_wins_and_is_capped():
    policy = RetryPolicy(max_delay=10)
    assert policy.delay(RateLimitError("x", retry_after=4), 1) == 4
    assert policy.delay(RateLimitError("x", retry_after=60), 1) == 10
