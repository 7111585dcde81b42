import pytest

from marginal.provider_usage import StreamUsage, from_anthropic_message, from_openai_chat_completion, from_openai_response
from vectors import ids, load

PROVIDERS = load("providers.json")
MAPPERS = {"chat.completions": from_openai_chat_completion, "responses": from_openai_response, "messages": from_anthropic_message}


def fold(vector):
    usage = StreamUsage(vector["api"])
    for sse in vector["sse"]:
        if sse["data"] != "[DONE]":
            usage.observe(sse["data"])
    return usage.fields()


@pytest.mark.parametrize("vector", PROVIDERS, ids=ids(PROVIDERS))
def test_usage_maps_to_the_expected_event(vector):
    got = fold(vector) if vector["stream"] else MAPPERS[vector["api"]](vector["response"])
    assert got == vector["expected_event"]


def test_openai_classes_are_disjoint_worked_example():
    # 2006 prompt tokens of which 1920 cached; 300 completion of which 120 reasoning.
    usage = {"prompt_tokens": 2006, "completion_tokens": 300,
             "prompt_tokens_details": {"cached_tokens": 1920}, "completion_tokens_details": {"reasoning_tokens": 120}}
    assert from_openai_chat_completion({"model": "gpt-4o-2024-08-06", "usage": usage}) == {
        "provider": "openai", "model": "gpt-4o-2024-08-06",
        "input_tokens": 86, "cache_read_input_tokens": 1920, "output_tokens": 180, "reasoning_tokens": 120,
    }


def test_no_usage_gives_no_event():
    assert from_openai_chat_completion({"model": "gpt-4o", "usage": None}) is None
    assert from_anthropic_message({"model": "claude", "usage": {"input_tokens": None}}) is None
    assert StreamUsage("chat.completions").fields() is None
