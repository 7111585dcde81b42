# Schemathesis hooks of `npm run fuzz` (scripts/fuzz/run.ts).
#
# 1. Signing: every ingest request whose X-Timestamp and X-Signature headers were generated as
#    valid is signed the way a client must (X-Signature: v1=hex(HMAC-SHA256(secret, X-Timestamp +
#    "." + raw body))), over the exact bytes requests sends, so generated bodies reach validation
#    instead of all ending in 401. A case that left a header out or generated it as invalid keeps
#    it as generated: the service must refuse it, and negative_data_rejection checks that it does.
# 2. Cross-field rules: the OpenAPI document states rules no JSON Schema keyword can (start_date
#    strictly before end_date and at most 28 days apart here, within every endpoint's 90-day and
#    12-month caps; filter_key with filter_value and dimension_value with dimension_key; an LLM
#    event needs model, input_tokens and output_tokens and takes no unit or quantity, a metered one
#    needs unit, quantity and model or provider; one-hour cache writes are a part of
#    cache_creation_input_tokens), and two it states in words where JSON Schema
#    has no keyword (an event time from 2000-01-01 to 2100-01-01, as no schema can bound a
#    date-time; no NUL in any key or string of the free-form metadata object, at any depth).
#    Cases schemathesis generated as valid are completed to follow them before they are sent, so
#    positive_data_acceptance judges what the document promises.
#    Negative cases are sent untouched.
# 3. OTLP: POST /otlp/v1/traces lives at the origin (its path item names server "/"), while
#    schemathesis sends every operation under the one base URL it is given (…/v1); its requests go
#    to MARGINAL_FUZZ_ORIGIN instead. Binary protobuf bodies are sent as application/octet-stream
#    bodies are (raw bytes).
import hashlib
import hmac
import os
import re
import time
from datetime import datetime, timedelta, timezone

import requests
import schemathesis
from schemathesis.core.parameters import ParameterLocation

SECRET = os.environ["MARGINAL_FUZZ_SIGNING_SECRET"].encode()
ORIGIN = os.environ["MARGINAL_FUZZ_ORIGIN"].rstrip("/")
ORIGIN_PATHS = ("/otlp/v1/traces",)

schemathesis.serializer.alias("application/x-protobuf", "application/octet-stream")
SIGNED_PATHS = ("/usage-events", "/usage-events/batch")
SIGNATURE_HEADERS = ("X-Timestamp", "X-Signature")
MAX_RANGE = timedelta(days=28)


class IngestSignature(requests.auth.AuthBase):
    """Runs on the prepared request, after the body is serialized: signs those bytes."""

    def __call__(self, request):
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        timestamp = str(int(time.time()))
        digest = hmac.new(SECRET, timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        request.headers["X-Timestamp"] = timestamp
        request.headers["X-Signature"] = f"v1={digest}"
        return request


def _positive(case, location):
    component = case.meta.components.get(location) if case.meta else None
    if component is not None:
        return component.mode.is_positive
    return case.meta is None or case.meta.generation.mode.is_positive


def _has_signature_headers(case):
    names = {name.lower() for name in (case.headers or {})}
    return all(header.lower() in names for header in SIGNATURE_HEADERS)


DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:?\d{2})?)?$")


def _parse(value):
    """The service's reading of what its date pattern admits (core/time.ts), as UTC."""
    m = DATE_TIME.match(value.upper())
    if not m:
        raise ValueError(value)
    day, hm, seconds, fraction, zone = m.groups()
    millis = (fraction or "")[:3].ljust(3, "0")
    offset = "+00:00" if zone in (None, "Z") else f"{zone[:3]}:{zone[-2:]}"
    text = f"{day}T{hm or '00:00'}:{seconds or '00'}.{millis}{offset}"
    return datetime.fromisoformat(text).astimezone(timezone.utc)


def _follow_date_rules(query):
    if not isinstance(query, dict) or not isinstance(query.get("start_date"), str) or not isinstance(query.get("end_date"), str):
        return
    try:
        start, end = _parse(query["start_date"]), _parse(query["end_date"])
        if start < end <= start + MAX_RANGE:
            return
        query["end_date"] = (start + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (ValueError, OverflowError):
        query["start_date"], query["end_date"] = "2026-01-01", "2026-01-02"


# Query parameters that only make sense with another one: without it the lone one is left out.
PAIRED_PARAMETERS = (("filter_value", "filter_key"), ("filter_key", "filter_value"), ("dimension_value", "dimension_key"))


def _follow_pairing_rules(query):
    if not isinstance(query, dict):
        return
    for name, needs in PAIRED_PARAMETERS:
        if name in query and needs not in query:
            del query[name]


EVENT_TIMES = ("timestamp", "started_at")


def _without_nul(value):
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [_without_nul(v) for v in value]
    if isinstance(value, dict):
        return {_without_nul(k): _without_nul(v) for k, v in value.items()}
    return value


def _follow_event_rules(event):
    if not isinstance(event, dict):
        return
    for field in EVENT_TIMES:
        value = event.get(field)
        # Years 2000 and 2099 are left too: there the zone offset decides which side of the edge
        # the instant falls. 2024 is a leap year, so any generated month and day exist in it.
        if isinstance(value, str) and len(value) > 4 and not (value[:4].isdigit() and 2001 <= int(value[:4]) <= 2098):
            event[field] = "2024" + value[4:]
    one_hour = event.get("cache_creation_1h_input_tokens")
    if isinstance(one_hour, int) and not (isinstance(event.get("cache_creation_input_tokens"), int) and event["cache_creation_input_tokens"] >= one_hour):
        event["cache_creation_input_tokens"] = one_hour
    if isinstance(event.get("metadata"), dict):
        event["metadata"] = _without_nul(event["metadata"])
    if event.get("metric") is not None:
        if event.get("unit") is None:
            event["unit"] = "image"
        if event.get("quantity") is None:
            event["quantity"] = 1
        if event.get("model") is None and event.get("provider") is None:
            event["provider"] = "openai"
    else:
        event.pop("unit", None)
        event.pop("quantity", None)
        if event.get("model") is None:
            event["model"] = "gpt-4o"
        for field in ("input_tokens", "output_tokens"):
            if event.get(field) is None:
                event[field] = 1


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.path in ORIGIN_PATHS:
        kwargs["url"] = ORIGIN + case.path
    if _positive(case, ParameterLocation.QUERY):
        _follow_date_rules(case.query)
        _follow_pairing_rules(case.query)
    if case.method.upper() != "POST" or case.path not in SIGNED_PATHS:
        return
    if _positive(case, ParameterLocation.BODY):
        if case.path == "/usage-events":
            _follow_event_rules(case.body)
        elif isinstance(case.body, dict) and isinstance(case.body.get("events"), list):
            for event in case.body["events"]:
                _follow_event_rules(event)
    if _positive(case, ParameterLocation.HEADER) and _has_signature_headers(case):
        kwargs["auth"] = IngestSignature()
