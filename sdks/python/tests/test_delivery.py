"""deliver_batch over a scripted post function: what is retried, what is final, and that every
attempt carries the same events (so the same idempotency keys)."""

from marginal.delivery import deliver_batch
from marginal.errors import MarginalConnectionError, RateLimitError, ServerError, ValidationError
from marginal.retry import RetryPolicy


def events(n):
    return [{"idempotency_key": f"k{i}", "model": "m", "input_tokens": 1, "output_tokens": 1} for i in range(n)]


def accepted(event):
    return {"event_id": "id-" + event["idempotency_key"], "status": "accepted", "message": "ok"}


class Script:
    """Answers each call with the next step: an exception to raise, or a function of the batch."""

    def __init__(self, *steps):
        self.steps = list(steps)
        self.calls = []

    def __call__(self, batch):
        self.calls.append([e["idempotency_key"] for e in batch])
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return {"results": [step(e) for e in batch]}


def run(script, batch, **policy):
    sleeps = []
    results = deliver_batch(script, batch, RetryPolicy(**policy), sleeps.append)
    return results, sleeps


def test_whole_request_is_retried_on_network_errors_429_and_5xx_with_the_same_keys():
    script = Script(MarginalConnectionError("reset"), RateLimitError("slow", retry_after=2), ServerError("503", status=503), accepted)
    results, sleeps = run(script, events(3))
    assert [r.status for r in results] == ["accepted"] * 3
    assert [r.event_id for r in results] == ["id-k0", "id-k1", "id-k2"]
    assert script.calls == [["k0", "k1", "k2"]] * 4
    assert len(sleeps) == 3 and sleeps[1] == 2


def test_only_the_events_answered_service_unavailable_go_again():
    def first(e):
        if e["idempotency_key"] == "k1":
            return {"error": {"code": "SERVICE_UNAVAILABLE", "message": "queue", "details": {"retryable": True}}}
        if e["idempotency_key"] == "k2":
            return {"error": {"code": "VALIDATION_ERROR", "message": "bad", "details": {"field": "model"}}}
        return {**accepted(e), "status": "accepted_flagged", "flag_reason": "no rate card"}

    script = Script(first, accepted)
    results, _ = run(script, events(3))
    assert script.calls == [["k0", "k1", "k2"], ["k1"]]
    assert [r.status for r in results] == ["accepted_flagged", "accepted", "rejected"]
    assert results[0].flag_reason == "no rate card"
    assert isinstance(results[2].error, ValidationError) and results[2].error.field == "model"


def test_other_4xx_are_final_at_once():
    script = Script(ValidationError("events: too many", status=400))
    results, sleeps = run(script, events(2))
    assert [r.status for r in results] == ["rejected", "rejected"] and sleeps == []


def test_retries_run_out_into_failed_results():
    script = Script(*[ServerError("down", status=503)] * 3)
    results, sleeps = run(script, events(2), max_retries=2)
    assert [r.status for r in results] == ["failed", "failed"]
    assert len(script.calls) == 3 and len(sleeps) == 2


def test_an_answer_without_one_result_per_event_is_retried():
    calls = []

    def post(batch):
        calls.append(len(batch))
        return {"results": []} if len(calls) == 1 else {"results": [accepted(e) for e in batch]}

    results = deliver_batch(post, events(2), RetryPolicy(), lambda s: None)
    assert calls == [2, 2] and all(r.ok for r in results)


def test_an_event_json_cannot_carry_is_rejected_alone():
    from marginal.events import encode_json

    sent = []

    def post(batch):
        encode_json({"events": list(batch)})
        sent.append([e["idempotency_key"] for e in batch])
        return {"results": [accepted(e) for e in batch]}

    batch = events(3)
    batch[1]["metadata"] = {"handle": object()}
    results = deliver_batch(post, batch, RetryPolicy(), lambda s: None)
    assert sent == [["k0", "k2"]]
    assert [r.status for r in results] == ["accepted", "rejected", "accepted"]
    assert results[1].error.code == "UNSERIALIZABLE_EVENT"
