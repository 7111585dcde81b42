"""Wrapped provider clients (official openai/anthropic packages, a local server replaying the
recorded shapes) record events that the real service prices: for each provider vector, one end
user whose token classes, model and cost are those worked out here from the vector and the
rate cards."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import anthropic
import openai
import pytest

import marginal
from fake_provider import FakeProvider, call_provider
from vectors import load

from .waiting import eventually

PROVIDERS = load("providers.json")
CLASSES = {"input_tokens": "input_cost_per_million", "output_tokens": "output_cost_per_million",
           "cache_read_input_tokens": "cache_read_cost_per_million",
           "cache_creation_input_tokens": "cache_creation_cost_per_million", "reasoning_tokens": "reasoning_cost_per_million"}
# Rates by model family; each model a vector answers with gets its own organization card (its
# full name as the slug, so no standard card with a longer matching prefix can win).
FAMILIES = {
    "gpt-": {"input_cost_per_million": "2.5", "output_cost_per_million": "10", "cache_read_cost_per_million": "1.25",
             "cache_creation_cost_per_million": "2.5", "reasoning_cost_per_million": "10"},
    "o3-": {"input_cost_per_million": "1.1", "output_cost_per_million": "4.4", "cache_read_cost_per_million": "0.55",
            "cache_creation_cost_per_million": "1.1", "reasoning_cost_per_million": "4.4"},
    "o4-": {"input_cost_per_million": "1.1", "output_cost_per_million": "4.4", "cache_read_cost_per_million": "0.275",
            "cache_creation_cost_per_million": "1.1", "reasoning_cost_per_million": "4.4"},
    "claude-": {"input_cost_per_million": "3", "output_cost_per_million": "15", "cache_read_cost_per_million": "0.3",
                "cache_creation_cost_per_million": "3.75", "reasoning_cost_per_million": "15"},
}


def family_rates(model: str) -> dict:
    return next(rates for prefix, rates in FAMILIES.items() if model.startswith(prefix))


def expected_cost(event: dict) -> Decimal:
    card = family_rates(event["model"])
    return sum((Decimal(event[k]) * Decimal(card[rate]) / 1_000_000 for k, rate in CLASSES.items() if k in event), Decimal(0))


@pytest.fixture(scope="module")
def provider():
    server = FakeProvider()
    yield server
    server.close()


def test_each_wrapped_call_is_priced_from_its_token_classes(service, provider):
    tenant = service.create_tenant(credits=100)
    for model in {v["expected_event"]["model"] for v in PROVIDERS}:
        service.add_rate_card(tenant.org_id, model_slug=model, **family_rates(model))
    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin)
    oa = marginal.wrap_openai(openai.OpenAI(api_key="sk-test", base_url=provider.origin + "/v1"), client, feature="capture")
    an = marginal.wrap_anthropic(anthropic.Anthropic(api_key="sk-ant-test", base_url=provider.origin), client, feature="capture")
    for index, vector in enumerate(PROVIDERS):
        provider.play(vector)
        with marginal.with_context(user_id=f"vec-{index}"):
            answer = call_provider(oa if vector["provider"] == "openai" else an, vector)
            if vector["stream"]:
                for _ in answer:
                    pass
    assert client.flush(30)
    summary = eventually(client.cost_summary, lambda s: s.status_counts.completed == len(PROVIDERS))
    assert summary.status_counts.completed == len(PROVIDERS)

    now = dt.datetime.now(dt.timezone.utc)
    window = {"start_date": now - dt.timedelta(hours=1), "end_date": now + dt.timedelta(hours=1)}
    for index, vector in enumerate(PROVIDERS):
        event = vector["expected_event"]
        user = client.end_user_summary(f"vec-{index}", **window)
        assert Decimal(user.total_cost) == expected_cost(event), vector["name"]
        for k in CLASSES:
            assert getattr(user, k) == event.get(k), (vector["name"], k)
        [model] = client.end_user_by_model(f"vec-{index}", **window).items
        assert model.attribution_value == event["model"]
    client.shutdown()
