from marginal.errors import (
    InsufficientCreditsError,
    MarginalApiError,
    RateLimitError,
    ServerError,
    SignatureError,
    ValidationError,
    error_from_batch_item,
    error_from_response,
)


def envelope(code, message="m", details=None, correlation_id="corr-1"):
    return {"success": False, "error": {"code": code, "message": message, "correlationId": correlation_id,
                                        "referenceCode": correlation_id, **({"details": details} if details else {})},
            "meta": {"timestamp": "2026-11-24T00:00:00Z"}}


def test_envelope_becomes_a_typed_error_with_code_correlation_and_details():
    err = error_from_response(400, envelope("VALIDATION_ERROR", "bad", {"field": "start_date"}), {})
    assert isinstance(err, ValidationError)
    assert (err.code, err.status, err.correlation_id, err.field) == ("VALIDATION_ERROR", 400, "corr-1", "start_date")


def test_402_carries_the_action_hint():
    err = error_from_response(402, envelope("INSUFFICIENT_CREDITS", details={"actionHint": "BUY_CREDITS"}), {})
    assert isinstance(err, InsufficientCreditsError)
    assert err.action_hint == "BUY_CREDITS"


def test_429_reads_retry_after():
    err = error_from_response(429, envelope("RATE_LIMIT_EXCEEDED"), {"retry-after": "7"})
    assert isinstance(err, RateLimitError) and err.retry_after == 7.0


def test_flat_signature_body():
    err = error_from_response(401, {"error": "X-Signature does not match", "code": "SIGNATURE_INVALID"}, {"x-correlation-id": "c9"})
    assert isinstance(err, SignatureError)
    assert (err.code, err.correlation_id) == ("SIGNATURE_INVALID", "c9")


def test_unknown_bodies_keep_the_status():
    err = error_from_response(502, "<html>bad gateway</html>", {})
    assert isinstance(err, ServerError) and err.code == "HTTP_502"
    assert type(error_from_response(418, None, {})) is MarginalApiError


def test_batch_items():
    assert isinstance(error_from_batch_item({"error": {"code": "SERVICE_UNAVAILABLE", "message": "x"}}), ServerError)
    credit = error_from_batch_item({"error": {"code": "INSUFFICIENT_CREDITS", "message": "x", "details": {"actionHint": "BUY_CREDITS"}}})
    assert isinstance(credit, InsufficientCreditsError) and credit.action_hint == "BUY_CREDITS"
