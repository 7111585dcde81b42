"""Request signing for ingestion, exactly as the service checks it (ingest/signature.ts).

X-Signature = "v1=" + hex HMAC-SHA256(signing secret, X-Timestamp + "." + raw body), with
X-Timestamp the Unix time in whole seconds. The body signed must be the exact bytes sent.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from typing import Optional, Union

SIGNATURE_SCHEME = "v1"


def sign(secret: str, timestamp: Union[int, str], body: Union[bytes, str]) -> str:
    """The X-Signature value for `body` sent at `timestamp` (Unix seconds)."""
    raw = body.encode("utf-8") if isinstance(body, str) else body
    mac = hmac.new(secret.encode("utf-8"), str(timestamp).encode("ascii") + b"." + raw, hashlib.sha256)
    return f"{SIGNATURE_SCHEME}={mac.hexdigest()}"


def signature_headers(secret: str, body: bytes, now: Optional[float] = None) -> dict[str, str]:
    """X-Timestamp and X-Signature for a request carrying `body`, signed now (or at `now`)."""
    timestamp = str(int(time.time() if now is None else now))
    return {"X-Timestamp": timestamp, "X-Signature": sign(secret, timestamp, body)}
