"""The read methods return the API's figures: a tenant with a known rate card and a known set of
events; every cost, token and count below is computed here from those events, independently of
the service. Then every read method is called once and must parse into its model."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections import defaultdict
from decimal import Decimal

import pytest

import marginal
from marginal import models
from marginal.reads import READ_ENDPOINTS

from .waiting import eventually

RATES = {"input_tokens": "2.5", "output_tokens": "10", "cache_read_input_tokens": "1.25",
         "cache_creation_input_tokens": "3.75", "reasoning_tokens": "12"}
MILLION = Decimal(1_000_000)


def cost(event) -> Decimal:
    return sum((Decimal(event.get(k, 0)) * Decimal(rate) / MILLION for k, rate in RATES.items()), Decimal(0))


def build_events(now: dt.datetime) -> list[dict]:
    users = ["alice", "bob", None]
    agents = ["planner", "coder", None]
    events = []
    for i in range(30):
        event = {
            "model": "rd-model-v1", "timestamp": now - dt.timedelta(minutes=30 + i),
            "input_tokens": 1000 + 37 * i, "output_tokens": 200 + 11 * i,
            "cache_read_input_tokens": 500 * (i % 3), "reasoning_tokens": 64 * (i % 2),
            "cache_creation_input_tokens": 128 * (i % 4 == 0),
            "agent_id": agents[i % 3], "workflow_id": f"wf-{i % 2}", "feature": "chat",
            "session_id": "sess-1", "span_id": f"span-{i % 5}", "parent_span_id": None if i % 5 == 0 else "span-0",
            "metadata": {"team": ["search", "ads"][i % 2], "latency_ms": 100 + i},
        }
        if users[i % 3]:
            event["user_id"] = users[i % 3]
        events.append({k: v for k, v in event.items() if v is not None})
    return events


@pytest.fixture(scope="module")
def tenant_with_events(service):
    tenant = service.create_tenant(credits=1000)
    service.add_rate_card(tenant.org_id, model_slug="rd-model", input_cost_per_million=RATES["input_tokens"],
                          output_cost_per_million=RATES["output_tokens"], cache_read_cost_per_million=RATES["cache_read_input_tokens"],
                          cache_creation_cost_per_million=RATES["cache_creation_input_tokens"],
                          reasoning_cost_per_million=RATES["reasoning_tokens"])
    service.add_dimension(tenant.org_id, key="team", name="Team", value_type="string")
    service.add_dimension(tenant.org_id, key="latency_ms", name="Latency", value_type="number")
    service._admin("POST", f"/organizations/{tenant.org_id}/budgets",
                   {"scope": "end_user", "user_id": "bob", "period": "monthly", "amount": "1000"})
    now = dt.datetime.now(dt.timezone.utc)
    events = build_events(now)
    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin)
    for event in events:
        client.track(event)
    assert client.flush(30)
    summary = eventually(client.cost_summary, lambda s: s.status_counts is not None and s.status_counts.completed == len(events))
    assert summary.status_counts.completed == len(events)
    yield client, events, now
    client.shutdown()


def test_cost_figures_match_the_events(tenant_with_events):
    client, events, now = tenant_with_events
    start, end = now.date() - dt.timedelta(days=1), now.date() + dt.timedelta(days=1)
    total = sum((cost(e) for e in events), Decimal(0))

    by_user = client.cost_by_end_user(start_date=start, end_date=end)
    assert Decimal(by_user.total_cost) == total
    expected_users: dict[str, Decimal] = defaultdict(Decimal)
    for e in events:
        expected_users[e.get("user_id", "Unassigned")] += cost(e)
    assert {u.end_user_name: Decimal(u.total_cost) for u in by_user.end_users} == expected_users

    alice = client.end_user_summary("alice", start_date=start, end_date=end)
    mine = [e for e in events if e.get("user_id") == "alice"]
    assert Decimal(alice.total_cost) == sum(cost(e) for e in mine)
    assert alice.event_count == len(mine)
    for k in ("input_tokens", "output_tokens", "cache_read_input_tokens", "reasoning_tokens", "cache_creation_input_tokens"):
        assert getattr(alice, k) == sum(e[k] for e in mine), k
    assert Decimal(alice.cache_read_cost) == sum(Decimal(e["cache_read_input_tokens"]) * Decimal("1.25") for e in mine) / MILLION

    agents = client.attribution_by_agent(start_date=start, end_date=end)
    expected_agents: dict[str, Decimal] = defaultdict(Decimal)
    for e in events:
        expected_agents[e.get("agent_id", "Unassigned")] += cost(e)
    assert {i.attribution_value: Decimal(i.total_cost) for i in agents.items} == expected_agents
    assert client.agents(start_date=start, end_date=end).values == ["coder", "planner"]
    assert client.workflows(start_date=start, end_date=end).values == ["wf-0", "wf-1"]

    teams = client.dimension_cost_breakdown(dimension_key="team", start_date=start, end_date=end)
    expected_teams: dict[str, Decimal] = defaultdict(Decimal)
    for e in events:
        expected_teams[e["metadata"]["team"]] += cost(e)
    assert {i.dimension_value: Decimal(i.total_cost) for i in teams.items} == expected_teams

    latency = client.dimension_numeric_summary(dimension_key="latency_ms", start_date=start, end_date=end)
    values = [e["metadata"]["latency_ms"] for e in events]
    assert (Decimal(latency.sum), Decimal(latency.min), Decimal(latency.max)) == (sum(values), min(values), max(values))

    tree = client.session_tree("sess-1")
    assert sum(Decimal(r.subtree_cost) for r in tree.roots) + Decimal(tree.untraced.total_cost) == total
    assert tree.span_count == 5

    margin = client.margin_summary(start_date=start, end_date=end)
    assert (Decimal(margin.total_cost), margin.total_revenue) == (total, "0")

    usage = client.usage_summary(start_date=start, end_date=end)
    assert usage.total_events == len(events)
    assert usage.metrics[0].total_quantity == sum(e["input_tokens"] + e["output_tokens"] for e in events)

    [rate] = [i for i in client.rates().items if i.model_slug == "rd-model"]
    assert (Decimal(rate.input_cost_per_million), Decimal(rate.reasoning_cost_per_million)) == (Decimal("2.5"), Decimal("12"))


def test_every_read_method_answers_with_its_model(tenant_with_events):
    client, events, now = tenant_with_events
    start, end = now - dt.timedelta(days=1), now + dt.timedelta(hours=1)
    window = {"start_date": start, "end_date": end}
    calls = {
        "ping": lambda: client.ping(),
        "usage_events": lambda: client.usage_events(**window, limit=5),
        "usage_summary": lambda: client.usage_summary(**window),
        "usage_aggregation": lambda: client.usage_aggregation(**window),
        "sessions": lambda: client.sessions(**window),
        "session_tree": lambda: client.session_tree("sess-1"),
        "rates": lambda: client.rates(),
        "margin_by_end_user": lambda: client.margin_by_end_user(**window),
        "margin_trend": lambda: client.margin_trend(**window),
        "margin_summary": lambda: client.margin_summary(**window),
        "end_user_summary": lambda: client.end_user_summary("bob", **window),
        "end_user_by_model": lambda: client.end_user_by_model("bob", **window),
        "end_user_by_provider": lambda: client.end_user_by_provider("bob", **window),
        "end_user_by_dimension": lambda: client.end_user_by_dimension("bob", dimension="team", **window),
        "end_user_trend": lambda: client.end_user_trend("bob", **window),
        "dimension_definitions": lambda: client.dimension_definitions(),
        "dimension_cost_trend": lambda: client.dimension_cost_trend(**window, dimension_key="team"),
        "dimension_numeric_trend": lambda: client.dimension_numeric_trend(dimension_key="latency_ms", aggregation="max", **window),
        "dimension_numeric_summary": lambda: client.dimension_numeric_summary(dimension_key="latency_ms", **window),
        "dimension_cost_breakdown": lambda: client.dimension_cost_breakdown(dimension_key="team", **window),
        "cost_summary": lambda: client.cost_summary(time_window="last-7-days"),
        "cost_by_end_user": lambda: client.cost_by_end_user(**window),
        "attribution_by_agent": lambda: client.attribution_by_agent(**window),
        "agents": lambda: client.agents(**window),
        "workflows": lambda: client.workflows(**window),
        "attribution_by_dimension": lambda: client.attribution_by_dimension(dimension="team", **window),
        "attribution_dimension_values": lambda: client.attribution_dimension_values(dimension="team", **window),
        "cost_trend": lambda: client.cost_trend(**window, group_by="model"),
        "pending_rate_card": lambda: client.pending_rate_card(**window),
        "end_users": lambda: client.end_users(),
        "end_user_sessions": lambda: client.end_user_sessions("bob", **window),
        "own_rates": lambda: client.own_rates(),
        "unpriced_rates": lambda: client.unpriced_rates(**window),
        "usage_event": lambda: client.usage_event(client.usage_events(**window, limit=1).events[0].id),
        "budgets": lambda: client.budgets(),
        "budget": lambda: client.budget(client.budgets().budgets[0].id),
        "budget_check": lambda: client.budget_check(user_id="bob"),
        "reconciliation": lambda: client.reconciliation(start_date=start.date(), end_date=end.date() + dt.timedelta(days=1)),
        "anomalies": lambda: client.anomalies(**window),
        "export_runs": lambda: client.export_runs(),
        "focus_export": lambda: client.focus_export(start_date=start.date(), end_date=end.date() + dt.timedelta(days=1)),
        "forecast": lambda: client.forecast(horizon="next-30-days"),
        "price_advice": lambda: client.price_advice(target_margin_percent="40"),
        "what_if_scenarios": lambda: client.what_if_scenarios(),
        "what_if_scenario": lambda: client.what_if_scenario(
            client.save_what_if_scenario({"name": "cache", "scenario": {"cache_hit_rate": {"percent": 10}}}).id
        ),
    }
    assert sorted(calls) == sorted(READ_ENDPOINTS)
    answers = {name: call() for name, call in calls.items()}
    bob = sum((cost(e) for e in events if e.get("user_id") == "bob"), Decimal(0))
    assert Decimal(answers["end_user_by_model"].total_cost) == bob
    assert [i.attribution_value for i in answers["end_user_by_model"].items] == ["rd-model-v1"]
    assert answers["attribution_dimension_values"].values == ["ads", "search"]
    assert answers["dimension_definitions"].total == 2
    # The console's endpoints: cost over time by model sums to the total, bob is an end user.
    by_model = answers["cost_trend"]
    assert sum(Decimal(p.cost) for series in by_model.series for p in series.data_points) == sum((cost(e) for e in events), Decimal(0))
    assert "bob" in [u.external_id for u in answers["end_users"].end_users]
    assert answers["usage_events"].total == len(events) and len(answers["usage_events"].events) == 5
    assert Decimal(answers["dimension_numeric_trend"].data_points[-1].value or 0) <= max(e["metadata"]["latency_ms"] for e in events)
    assert answers["sessions"].sessions[0].session_id == "sess-1"
    # Forecasts: the next 30 days hold at least what today already cost; a 40% target echoes back.
    assert answers["forecast"].horizon == "next-30-days" and Decimal(answers["forecast"].cost.value) >= Decimal(answers["forecast"].observed_cost)
    assert answers["price_advice"].target_margin_percent == 40
    # Every event is priced (no model waits for a card); bob's budget of $1,000 is far from spent.
    assert answers["unpriced_rates"].items == [] and answers["unpriced_rates"].total_events == 0
    assert answers["budget"].user_id == "bob" and answers["budget_check"].allowed is True
    # The event looked up by id is priced by the tenant's card at the cost worked out above (input
    # token counts are distinct per event, so they identify it).
    detail = answers["usage_event"]
    [sent] = [e for e in events if e["input_tokens"] == detail.input_tokens]
    assert (Decimal(detail.cost.total_cost), detail.rate_card.model_slug) == (cost(sent), "rd-model")


def test_focus_export_is_the_cost_as_a_file(tenant_with_events):
    # Whole UTC days around now: BilledCost (the first column, a plain decimal) sums to every event's cost.
    client, events, now = tenant_with_events
    days = {"start_date": (now - dt.timedelta(days=1)).date(), "end_date": (now + dt.timedelta(days=2)).date()}
    lines = client.focus_export(**days).decode().strip().split("\r\n")
    assert lines[0].split(",")[0] == "BilledCost"
    assert sum((Decimal(line.split(",")[0]) for line in lines[1:]), Decimal(0)) == sum((cost(e) for e in events), Decimal(0))
    assert client.focus_export(**days, format="parquet")[:4] == b"PAR1"
    with pytest.raises(marginal.ValidationError) as raised:
        client.focus_export(start_date=now, end_date=now + dt.timedelta(days=1))
    assert raised.value.field == "start_date"
    assert client.export_runs().runs == []


def test_bad_parameters_raise_typed_errors(tenant_with_events):
    client, _, now = tenant_with_events
    with pytest.raises(marginal.ValidationError) as raised:
        client.usage_summary(start_date=now, end_date=now - dt.timedelta(days=1))
    assert raised.value.status == 400 and raised.value.correlation_id and raised.value.field
    with pytest.raises(marginal.DateRangeTooLargeError):
        client.margin_summary(start_date="2024-01-01", end_date="2025-06-01")


def test_what_if_prices_a_substitution(tenant_with_events):
    # rd-model-v1 priced as itself with twice the tokens: every class doubles exactly, so the
    # simulated cost is twice the actual one; the body may be a model or a plain dict.
    client, events, now = tenant_with_events
    total = sum((cost(e) for e in events), Decimal(0))
    window = {"start_date": (now - dt.timedelta(days=1)).isoformat(), "end_date": (now + dt.timedelta(hours=1)).isoformat()}
    scenario = models.WhatIfRequest(**window, substitutions=[{"from_model": "rd-model-v1", "to_model": "rd-model-v1", "token_ratio": 2}])
    answer = client.what_if(scenario)
    assert (Decimal(answer.actual_cost), Decimal(answer.simulated_cost), Decimal(answer.difference)) == (total, 2 * total, total)
    assert sorted(u.external_id for u in answer.end_users) == ["alice", "bob"]
    same = client.what_if({**window, "substitutions": [{"from_model": "rd-model-v1", "to_model": "rd-model-v1"}]})
    assert Decimal(same.difference) == 0
    with pytest.raises(marginal.ValidationError) as raised:
        client.what_if({**window, "substitutions": []})
    assert raised.value.field == "substitutions"


def test_saved_what_if_scenario_runs_as_what_if(tenant_with_events):
    # A saved scenario run over a range answers exactly what what_if answers for it with that range.
    client, events, now = tenant_with_events
    window = {"start_date": (now - dt.timedelta(days=1)).isoformat(), "end_date": (now + dt.timedelta(hours=1)).isoformat()}
    scenario = {"substitutions": [{"from_model": "rd-model-v1", "to_model": "rd-model-v1", "token_ratio": 2}]}
    saved = client.save_what_if_scenario(models.WhatIfScenarioBody(name="doubled", scenario=scenario))
    assert saved.name == "doubled" and saved.id in [s.id for s in client.what_if_scenarios().items]
    run = client.run_what_if_scenario(saved.id, window)
    total = sum((cost(e) for e in events), Decimal(0))
    assert Decimal(run.simulated_cost) == 2 * total
    assert run == client.what_if({**window, **scenario})
    with pytest.raises(marginal.ValidationError) as raised:
        client.save_what_if_scenario({"name": "none", "scenario": {}})
    assert raised.value.field == "scenario.substitutions"


def test_saved_what_if_scenario_is_deleted_sync_and_async(service):
    # Deleted, a scenario is gone from the list and reading or deleting it again is 404 (NotFoundError).
    tenant = service.create_tenant(credits=10)
    client = marginal.Marginal(tenant.api_key, tenant.signing_secret, service.origin)
    scenario = {"cache_hit_rate": {"percent": 10}}
    kept = client.save_what_if_scenario({"name": "kept", "scenario": scenario})
    gone = client.save_what_if_scenario({"name": "sync", "scenario": scenario})
    assert client.delete_what_if_scenario(gone.id) is None

    async def delete_async() -> str:
        async with marginal.AsyncMarginal(api_key=tenant.api_key, signing_secret=tenant.signing_secret, base_url=service.origin,
                                          flush_on_exit=False) as async_client:
            saved = await async_client.save_what_if_scenario({"name": "async", "scenario": scenario})
            assert await async_client.delete_what_if_scenario(saved.id) is None
            return saved.id

    gone_async = asyncio.run(delete_async())
    assert [s.id for s in client.what_if_scenarios().items] == [kept.id]
    for scenario_id in (gone.id, gone_async):
        with pytest.raises(marginal.NotFoundError):
            client.what_if_scenario(scenario_id)
        with pytest.raises(marginal.NotFoundError):
            client.delete_what_if_scenario(scenario_id)
    client.shutdown()
