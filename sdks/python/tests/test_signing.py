import hashlib
import hmac

import pytest

from marginal.signing import sign, signature_headers
from vectors import ids, load

SIGNING = load("signing.json")


@pytest.mark.parametrize("vector", SIGNING, ids=ids(SIGNING))
def test_signature_matches_the_shared_vector(vector):
    assert vector["body"].encode("utf-8").hex() == vector["body_utf8_hex"]
    assert sign(vector["secret"], vector["timestamp"], vector["body"]) == vector["signature"]
    assert sign(vector["secret"], int(vector["timestamp"]), vector["body"].encode("utf-8")) == vector["signature"]


def test_headers_sign_the_exact_bytes_at_the_given_second():
    body = '{"idempotency_key":"k1","note":"café"}'.encode("utf-8")
    headers = signature_headers("sec", body, now=1700000000.9)
    assert headers["X-Timestamp"] == "1700000000"
    expected = hmac.new(b"sec", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert headers["X-Signature"] == "v1=" + expected
