"""Client options: explicit arguments first, then MARGINAL_BASE_URL / MARGINAL_API_KEY /
MARGINAL_SIGNING_SECRET. The base URL is the server's origin; every path gets /v1 added here."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from .errors import MarginalConfigError

DEFAULT_BASE_URL = "http://127.0.0.1:8080"
API_PREFIX = "/v1"


@dataclass(frozen=True)
class Credentials:
    api_key: str
    signing_secret: Optional[str]
    base_url: str

    @property
    def api_url(self) -> str:
        """The base URL with /v1: where every path of the API lives."""
        return self.base_url + API_PREFIX


def resolve_credentials(
    api_key: Optional[str], signing_secret: Optional[str], base_url: Optional[str]
) -> Credentials:
    key = api_key or os.environ.get("MARGINAL_API_KEY")
    if not key:
        raise MarginalConfigError("an API key is required: pass api_key= or set MARGINAL_API_KEY")
    secret = signing_secret or os.environ.get("MARGINAL_SIGNING_SECRET") or None
    url = (base_url or os.environ.get("MARGINAL_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
    # Accept an origin given with the prefix too, so "…/v1" never becomes "…/v1/v1".
    if url.endswith(API_PREFIX):
        url = url[: -len(API_PREFIX)]
    return Credentials(api_key=key, signing_secret=secret, base_url=url)


def require_signing_secret(creds: Credentials) -> str:
    """The signing secret, or MarginalConfigError: sending events needs one."""
    if not creds.signing_secret:
        raise MarginalConfigError("a signing secret is required to send events: pass signing_secret= or set MARGINAL_SIGNING_SECRET")
    return creds.signing_secret
