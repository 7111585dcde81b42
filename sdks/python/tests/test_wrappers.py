"""wrap_openai / wrap_anthropic with the official SDKs pointed at a local server that answers
with the recorded shapes: one event per call with the vector's token classes, plus the
attribution; the provider's answer (type and content) unchanged; capture failures swallowed."""

from __future__ import annotations

import anthropic
import openai
import pytest

import marginal
from fake_provider import FakeProvider, call_provider
from vectors import ids, load

PROVIDERS = load("providers.json")


class Tracked:
    def __init__(self) -> None:
        self.events: list[dict] = []

    def track(self, event):
        self.events.append(event)
        return "key"


@pytest.fixture(scope="module")
def provider():
    server = FakeProvider()
    yield server
    server.close()


def clients(origin: str, is_async: bool):
    if is_async:
        return openai.AsyncOpenAI(api_key="sk-test", base_url=origin + "/v1", max_retries=0), anthropic.AsyncAnthropic(
            api_key="sk-ant-test", base_url=origin, max_retries=0)
    return openai.OpenAI(api_key="sk-test", base_url=origin + "/v1", max_retries=0), anthropic.Anthropic(
        api_key="sk-ant-test", base_url=origin, max_retries=0)


def wrapped(vector, origin, tracker, is_async):
    oa, an = clients(origin, is_async)
    if vector["provider"] == "openai":
        return marginal.wrap_openai(oa, tracker, feature="search", metadata={"team": "core"})
    return marginal.wrap_anthropic(an, tracker, feature="search", metadata={"team": "core"})


def check_event(tracker: Tracked, vector) -> None:
    assert len(tracker.events) == 1
    event = dict(tracker.events[0])
    assert event.pop("timestamp").endswith("Z") and event.pop("started_at").endswith("Z")
    assert event == {**vector["expected_event"], "feature": "search", "user_id": "customer_42",
                     "metadata": {"team": "core", "plan": "pro"}}


@pytest.mark.parametrize("vector", PROVIDERS, ids=ids(PROVIDERS))
def test_sync_call_records_the_vector_event(provider, vector):
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=False)
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        answer = call_provider(client, vector)
    if vector["stream"]:
        assert tracker.events == []  # recorded when the stream ends, not before
        items = list(answer)
        assert type(answer).__name__ == "Stream"
        assert len(items) == len([e for e in vector["sse"] if e["data"] != "[DONE]" and e.get("event") != "ping"])
    else:
        assert answer.model == vector["response"]["model"]
        assert answer.id == vector["response"]["id"]
    check_event(tracker, vector)
    assert provider.requests[-1] == vector["request"]  # the request went out as the caller wrote it


@pytest.mark.parametrize("vector", PROVIDERS, ids=ids(PROVIDERS))
async def test_async_call_records_the_vector_event(provider, vector):
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=True)
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        answer = await call_provider(client, vector)
    if vector["stream"]:
        assert type(answer).__name__ == "AsyncStream"
        items = [item async for item in answer]
        assert items
    else:
        assert answer.model == vector["response"]["model"]
    check_event(tracker, vector)


def test_attribution_is_read_at_call_start(provider):
    vector = next(v for v in PROVIDERS if v["provider"] == "anthropic" and v["stream"])
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=False)
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        stream = call_provider(client, vector)
    with marginal.with_context(user_id="someone_else"):
        list(stream)
    check_event(tracker, vector)


def test_a_capture_failure_never_breaks_the_call(provider):
    class Broken:
        def track(self, event):
            raise RuntimeError("queue exploded")

    for vector in (PROVIDERS[0], next(v for v in PROVIDERS if v["stream"])):
        provider.play(vector)
        heard = []
        client = marginal.wrap_openai(clients(provider.origin, False)[0], Broken(), on_capture_error=heard.append)
        answer = call_provider(client, vector)
        if vector["stream"]:
            assert len(list(answer)) > 0
        else:
            assert answer.id == vector["response"]["id"]
        assert [str(e) for e in heard] == ["queue exploded"]


def test_provider_errors_reach_the_caller_unchanged(provider):
    provider.play(None)
    tracker = Tracked()
    client = marginal.wrap_openai(clients(provider.origin, False)[0], tracker)
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "x"}])
    assert tracker.events == []


def test_wrapping_twice_records_once(provider):
    vector = PROVIDERS[0]
    provider.play(vector)
    tracker = Tracked()
    client = clients(provider.origin, False)[0]
    marginal.wrap_openai(marginal.wrap_openai(client, tracker), tracker)
    client.chat.completions.create(**vector["request"])
    assert len(tracker.events) == 1


def test_unknown_attribution_fields_are_refused():
    with pytest.raises(TypeError):
        marginal.wrap_openai(object(), Tracked(), userid="typo")


ANTHROPIC_STREAMS = [v for v in PROVIDERS if v["provider"] == "anthropic" and v["stream"]]


@pytest.mark.parametrize("vector", ANTHROPIC_STREAMS, ids=ids(ANTHROPIC_STREAMS))
def test_anthropic_stream_helper_records_the_vector_event(provider, vector):
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=False)
    request = {k: v for k, v in vector["request"].items() if k != "stream"}
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        manager = client.messages.stream(**request)
    with manager as stream:
        final = stream.get_final_message()
    assert final.model == vector["expected_event"]["model"]
    check_event(tracker, vector)


@pytest.mark.parametrize("vector", ANTHROPIC_STREAMS, ids=ids(ANTHROPIC_STREAMS))
async def test_async_anthropic_stream_helper_records_the_vector_event(provider, vector):
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=True)
    request = {k: v for k, v in vector["request"].items() if k != "stream"}
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        manager = client.messages.stream(**request)
    async with manager as stream:
        texts = [text async for text in stream.text_stream]
    assert texts
    check_event(tracker, vector)


OPENAI_STREAMS = [v for v in PROVIDERS if v["provider"] == "openai" and v["stream"]]


@pytest.mark.parametrize("vector", OPENAI_STREAMS, ids=ids(OPENAI_STREAMS))
def test_openai_stream_helpers_record_once_through_create(provider, vector):
    # chat.completions.stream() and responses.stream() call the client's create(stream=True).
    provider.play(vector)
    tracker = Tracked()
    client = wrapped(vector, provider.origin, tracker, is_async=False)
    request = {k: v for k, v in vector["request"].items() if k != "stream"}
    helper = client.chat.completions.stream if vector["api"] == "chat.completions" else client.responses.stream
    with marginal.with_context(user_id="customer_42", metadata={"plan": "pro"}):
        with helper(**request) as stream:
            for _ in stream:
                pass
    check_event(tracker, vector)
