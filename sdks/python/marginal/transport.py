"""HTTP to the service with httpx: one request → decoded JSON or a typed error, with the retry
policy applied (GETs, read POSTs such as /what-if, DELETEs and signed POSTs alike; a signed POST is re-signed per attempt
over the same bytes, so its idempotency key never changes). `SyncTransport` and `AsyncTransport` differ
only in how they wait."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Mapping, Optional

import httpx

from .config import Credentials, require_signing_secret
from .errors import MarginalConnectionError, MarginalError, ServerError, error_from_response
from .events import encode_json
from .retry import RetryPolicy
from .signing import signature_headers

USER_AGENT = "marginal-python"


def _headers(creds: Credentials) -> dict[str, str]:
    return {"Authorization": f"Bearer {creds.api_key}", "User-Agent": USER_AGENT, "Accept": "application/json"}


def _signed(creds: Credentials, body: bytes) -> dict[str, str]:
    return {**signature_headers(require_signing_secret(creds), body), "Content-Type": "application/json"}


def _file(response: httpx.Response) -> bytes:
    """A download's bytes, or the typed error of its JSON envelope."""
    if response.is_success:
        return response.content
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
    raise error_from_response(response.status_code, body, response.headers)


def _decode(response: httpx.Response) -> Any:
    try:
        body = response.json() if response.content else None
    except ValueError:
        body = None
    if response.is_success:
        if body is None and response.content:
            raise ServerError("the answer is not JSON", code="BAD_ANSWER", status=response.status_code)
        return body
    raise error_from_response(response.status_code, body, response.headers)


def _clean(params: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    return {k: v for k, v in (params or {}).items() if v is not None}


class SyncTransport:
    def __init__(self, creds: Credentials, policy: RetryPolicy, timeout: float, client: Optional[httpx.Client] = None):
        self.creds = creds
        self.policy = policy
        self._client = client or httpx.Client(timeout=timeout)
        self._owns_client = client is None
        self.sleep: Callable[[float], None] = time.sleep

    def get(self, path: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        url = self.creds.api_url + path
        return self._retrying(lambda: self._send(lambda: self._client.get(url, params=_clean(params), headers=_headers(self.creds))))

    def get_bytes(self, path: str, params: Optional[Mapping[str, Any]] = None) -> bytes:
        """A GET answering a file (CSV, Parquet): its bytes."""
        url = self.creds.api_url + path
        headers = {**_headers(self.creds), "Accept": "*/*"}
        return self._retrying(lambda: self._send(lambda: self._client.get(url, params=_clean(params), headers=headers), _file))

    def post(self, path: str, payload: Any) -> Any:
        """A read with a JSON body (it changes nothing, so it is retried like a GET)."""
        body = encode_json(payload)
        url = self.creds.api_url + path
        headers = {**_headers(self.creds), "Content-Type": "application/json"}
        return self._retrying(lambda: self._send(lambda: self._client.post(url, content=body, headers=headers)))

    def delete(self, path: str) -> None:
        """A DELETE (204, no body). A retry after an attempt whose answer was lost may meet 404 (NotFoundError)."""
        url = self.creds.api_url + path
        self._retrying(lambda: self._send(lambda: self._client.delete(url, headers=_headers(self.creds))))

    def post_signed(self, path: str, payload: Any) -> Any:
        return self._retrying(lambda: self.post_signed_once(path, payload))

    def post_signed_once(self, path: str, payload: Any) -> Any:
        """One attempt, no retry (batch delivery decides retries per event)."""
        body = encode_json(payload)
        return self._send(
            lambda: self._client.post(self.creds.api_url + path, content=body, headers={**_headers(self.creds), **_signed(self.creds, body)})
        )

    def _send(self, request: Callable[[], httpx.Response], decode: Callable[[httpx.Response], Any] = _decode) -> Any:
        try:
            response = request()
        except httpx.TransportError as err:
            raise MarginalConnectionError(f"{type(err).__name__}: {err}", code="CONNECTION_ERROR") from err
        return decode(response)

    def _retrying(self, request: Callable[[], Any]) -> Any:
        attempt = 0
        while True:
            try:
                return request()
            except MarginalError as error:
                attempt += 1
                if not self.policy.should_retry(error, attempt):
                    raise
                self.sleep(self.policy.delay(error, attempt))

    def close(self) -> None:
        if self._owns_client:
            self._client.close()


class AsyncTransport:
    def __init__(self, creds: Credentials, policy: RetryPolicy, timeout: float, client: Optional[httpx.AsyncClient] = None):
        self.creds = creds
        self.policy = policy
        self._client = client or httpx.AsyncClient(timeout=timeout)
        self._owns_client = client is None

    async def get(self, path: str, params: Optional[Mapping[str, Any]] = None) -> Any:
        url = self.creds.api_url + path
        return await self._retrying(lambda: self._client.get(url, params=_clean(params), headers=_headers(self.creds)))

    async def get_bytes(self, path: str, params: Optional[Mapping[str, Any]] = None) -> bytes:
        """A GET answering a file (CSV, Parquet): its bytes."""
        url = self.creds.api_url + path
        headers = {**_headers(self.creds), "Accept": "*/*"}
        return await self._retrying(lambda: self._client.get(url, params=_clean(params), headers=headers), _file)

    async def post(self, path: str, payload: Any) -> Any:
        """A read with a JSON body (it changes nothing, so it is retried like a GET)."""
        body = encode_json(payload)
        url = self.creds.api_url + path
        headers = {**_headers(self.creds), "Content-Type": "application/json"}
        return await self._retrying(lambda: self._client.post(url, content=body, headers=headers))

    async def delete(self, path: str) -> None:
        """A DELETE (204, no body). A retry after an attempt whose answer was lost may meet 404 (NotFoundError)."""
        url = self.creds.api_url + path
        await self._retrying(lambda: self._client.delete(url, headers=_headers(self.creds)))

    async def post_signed(self, path: str, payload: Any) -> Any:
        body = encode_json(payload)
        url = self.creds.api_url + path
        return await self._retrying(
            lambda: self._client.post(url, content=body, headers={**_headers(self.creds), **_signed(self.creds, body)})
        )

    async def _retrying(self, request: Callable[[], Any], decode: Callable[[httpx.Response], Any] = _decode) -> Any:
        attempt = 0
        while True:
            try:
                try:
                    response = await request()
                except httpx.TransportError as err:
                    raise MarginalConnectionError(f"{type(err).__name__}: {err}", code="CONNECTION_ERROR") from err
                return decode(response)
            except MarginalError as error:
                attempt += 1
                if not self.policy.should_retry(error, attempt):
                    raise
                await asyncio.sleep(self.policy.delay(error, attempt))

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
