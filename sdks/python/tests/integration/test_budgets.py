"""budget_allows against the real service: a $3 daily budget of one end user and events of $2
(1,000,000 input tokens at $2 per million): allowed after the first ($2 < $3), refused after the
second ($4 >= $3); another end user stays allowed."""

from __future__ import annotations

import asyncio

import marginal

from .waiting import eventually


def test_budget_allows_turns_false_once_the_budget_is_exhausted(service):
    tenant = service.create_tenant(credits=100)
    service.add_rate_card(tenant.org_id, model_slug="py-budget-model", input_cost_per_million="2", output_cost_per_million="0")
    service._admin("POST", f"/organizations/{tenant.org_id}/budgets",
                   {"scope": "end_user", "user_id": "alice", "period": "daily", "amount": "3"})
    client = marginal.Marginal(api_key=tenant.api_key, signing_secret=tenant.signing_secret, base_url=service.origin, flush_on_exit=False)
    event = {"model": "py-budget-model", "input_tokens": 1_000_000, "output_tokens": 0, "user_id": "alice"}
    client.send(event)
    assert client.budget_allows("alice") is True
    client.send(event)
    assert eventually(lambda: client.budget_allows("alice"), lambda allowed: allowed is False, timeout=60) is False
    assert client.budget_allows("bob") is True

    async def from_async() -> bool:
        async_client = marginal.AsyncMarginal(api_key=tenant.api_key, signing_secret=tenant.signing_secret, base_url=service.origin, flush_on_exit=False)
        try:
            return await async_client.budget_allows("alice")
        finally:
            await async_client.shutdown()

    assert asyncio.run(from_async()) is False
