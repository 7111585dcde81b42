# Schemathesis hooks of `npm run fuzz` (scripts/fuzz/run.ts): signs every ingest request the way
# a client must (X-Signature: v1=hex(HMAC-SHA256(secret, X-Timestamp + "." + raw body))), over the
# exact bytes requests sends, so generated ingest bodies reach validation instead of all ending
# in 401. The key and secret come from the environment the runner sets.
import hashlib
import hmac
import os
import time

import requests
import schemathesis

SECRET = os.environ["MARGINAL_FUZZ_SIGNING_SECRET"].encode()
SIGNED_PATHS = ("/usage-events", "/usage-events/batch")


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


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.method.upper() == "POST" and case.path in SIGNED_PATHS:
        kwargs["auth"] = IngestSignature()
