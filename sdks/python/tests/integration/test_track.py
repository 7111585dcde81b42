"""track() against the real service: thousands of events through a proxy that injects 503s,
429s and dropped connections arrive exactly once; a 402 reaches the caller."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import threading
from decimal import Decimal

import pytest

import marginal
from marginal import InsufficientCreditsError, RetryPolicy

from .fault_proxy import FaultProxy
from .waiting import eventually, eventually_async

N = 3000
FAST_RETRY = RetryPolicy(max_retries=10, initial_delay=0.02, max_delay=2.0)


def window():
    today = dt.datetime.now(dt.timezone.utc).date()
    return today - dt.timedelta(days=1), today + dt.timedelta(days=2)


def test_thousands_of_tracked_events_arrive_exactly_once_across_faults(service):
    tenant = service.create_tenant(credits=N + 500)
    proxy = FaultProxy(service.origin, retry_after="1")
    results: list[marginal.EventResult] = []
    lock = threading.Lock()

    def on_result(result):
        with lock:
            results.append(result)

    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, proxy.origin, on_result=on_result,
                               batch_size=150, flush_interval=0.2, retry=FAST_RETRY, timeout=30)
    expected_quantity = 0
    keys = []
    for i in range(N):
        event = {"model": "sdk-model", "input_tokens": 10 + i % 50, "output_tokens": 1 + i % 7,
                 "user_id": f"user-{i % 3}", "metadata": {"i": i}}
        expected_quantity += event["input_tokens"] + event["output_tokens"]
        keys.append(client.track(event))
    assert client.flush(timeout=180)
    client.shutdown(10)
    proxy.close()

    # Every fault kind happened, and the client still got exactly one accepted result per event.
    assert set(proxy.injected) == {"503", "429", "drop_before", "drop_after"}, proxy.injected
    assert len(results) == N
    assert {r.status for r in results} == {"accepted_flagged"}  # no rate card for sdk-model: flagged, still queued
    assert sorted(r.idempotency_key for r in results) == sorted(keys)
    assert len({r.event_id for r in results}) == N
    assert client.dropped_count == 0

    # The service charged each event once, whatever the retries...
    assert service.credit_balance(tenant.org_id) == 500
    # ...and stored each once.
    reader = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin)
    start, end = window()
    summary = eventually(lambda: reader.usage_summary(start_date=start, end_date=end), lambda s: s.total_events >= N)
    assert summary.total_events == N
    assert [(m.metric_name, m.total_quantity, m.event_count) for m in summary.metrics] == [("tokens", expected_quantity, N)]
    assert reader.usage_events(start_date=start, end_date=end, limit=1).total == N
    reader.shutdown()


def test_402_reaches_the_caller_of_send_and_of_track(service):
    tenant = service.create_tenant(credits=1)
    results = []
    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin, on_result=results.append)
    first = client.send({"idempotency_key": "credit-1", "model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    assert first.status in ("accepted", "accepted_flagged")
    with pytest.raises(InsufficientCreditsError) as raised:
        client.send({"idempotency_key": "credit-2", "model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    err = raised.value
    assert (err.status, err.code, err.action_hint) == (402, "INSUFFICIENT_CREDITS", "BUY_CREDITS")
    assert err.correlation_id

    key = client.track({"model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    assert client.flush(30)
    [result] = results
    assert (result.idempotency_key, result.status) == (key, "rejected")
    assert isinstance(result.error, InsufficientCreditsError) and result.error.action_hint == "BUY_CREDITS"

    # Retrying later with the same key is safe: once credits exist, it goes through, once.
    service.grant_credits(tenant.org_id, 5)
    again = client.send({"idempotency_key": "credit-2", "model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    repeat = client.send({"idempotency_key": "credit-2", "model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    assert again.event_id == repeat.event_id
    assert service.credit_balance(tenant.org_id) == 4
    client.shutdown()


def test_validation_errors_name_the_field_and_are_not_retried(service):
    tenant = service.create_tenant(credits=10)
    results = []
    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin, on_result=results.append)
    with pytest.raises(marginal.ValidationError) as raised:
        client.send({"model": "sdk-model", "input_tokens": -1, "output_tokens": 1})
    assert raised.value.field == "input_tokens"
    client.track({"model": "sdk-model", "input_tokens": 1, "output_tokens": 1, "colour": "red"})
    client.flush(30)
    assert results[0].status == "rejected" and results[0].error.code == "VALIDATION_ERROR"
    client.shutdown()


def test_a_wrong_signing_secret_is_a_signature_error(service):
    tenant = service.create_tenant(credits=10)
    client = marginal.Marginal(tenant.api_key, "mks_wrong", service.origin)
    with pytest.raises(marginal.SignatureError) as raised:
        client.send({"model": "sdk-model", "input_tokens": 1, "output_tokens": 1})
    assert raised.value.code == "SIGNATURE_INVALID"
    client.shutdown()


async def test_async_client_sends_tracks_and_reads(service):
    tenant = service.create_tenant(credits=100)
    service.add_rate_card(tenant.org_id, model_slug="async-model", input_cost_per_million="3", output_cost_per_million="15")
    results = []
    async with marginal.AsyncMarginal(tenant.api_key, tenant.signing_secret, service.origin, on_result=results.append,
                                      flush_interval=0.1) as client:
        sent = await client.send({"model": "async-model", "input_tokens": 1000, "output_tokens": 100, "user_id": "a1"})
        assert sent.status == "accepted"
        for _ in range(20):
            client.track({"model": "async-model", "input_tokens": 1000, "output_tokens": 100, "user_id": "a1"})
        assert await client.flush(30)
        assert [r.status for r in results] == ["accepted"] * 20
        start, end = window()

        costs = await eventually_async(lambda: client.cost_by_end_user(start_date=start, end_date=end),
                                       lambda c: Decimal(c.total_cost) >= Decimal("0.0945"))
        # 21 events × (1000 × $3 + 100 × $15) per million = 21 × 0.0045
        assert Decimal(costs.total_cost) == Decimal("0.0945")
        with pytest.raises(marginal.NotFoundError) as raised:
            await client.end_user_summary("nobody", start_date=start, end_date=end)
        assert raised.value.code == "NOT_FOUND" and raised.value.correlation_id


def test_events_tracked_just_before_interpreter_exit_are_sent(service):
    tenant = service.create_tenant(credits=100)
    script = (
        "import marginal\n"
        "m = marginal.Marginal(flush_interval=60)\n"  # only the exit hook can send these
        "for i in range(25):\n"
        "    m.track({'model': 'sdk-model', 'input_tokens': 1, 'output_tokens': 1})\n"
    )
    env = {**os.environ, "MARGINAL_API_KEY": tenant.api_key, "MARGINAL_SIGNING_SECRET": tenant.signing_secret,
           "MARGINAL_BASE_URL": service.origin + "/v1"}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, timeout=60)
    assert service.credit_balance(tenant.org_id) == 75


async def test_send_retries_through_faults_with_the_same_key_sync_and_async(service):
    tenant = service.create_tenant(credits=40)
    proxy = FaultProxy(service.origin, retry_after="0")
    event = {"model": "sdk-model", "input_tokens": 3, "output_tokens": 2}
    sync_client = marginal.Marginal(tenant.api_key, tenant.signing_secret, proxy.origin, retry=FAST_RETRY)
    async_client = marginal.AsyncMarginal(tenant.api_key, tenant.signing_secret, proxy.origin, retry=FAST_RETRY)
    ids = [sync_client.send({**event, "idempotency_key": f"send-{i}"}).event_id for i in range(10)]
    ids += [(await async_client.send({**event, "idempotency_key": f"send-{i}"})).event_id for i in range(10, 20)]
    # The same keys again: the same event ids, nothing charged twice.
    again = [sync_client.send({**event, "idempotency_key": f"send-{i}"}).event_id for i in range(20)]
    assert again == ids and len(set(ids)) == 20
    assert sum(proxy.injected.values()) >= 10
    assert service.credit_balance(tenant.org_id) == 20
    sync_client.shutdown()
    await async_client.shutdown()
    proxy.close()
