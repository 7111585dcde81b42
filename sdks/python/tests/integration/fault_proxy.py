"""A loopback HTTP proxy in front of the real service that injects faults into ingestion
requests by a fixed schedule: a 503 answered without forwarding, a 429 with Retry-After, a
connection dropped before forwarding, and a connection dropped *after* the service took the
request (the client never hears the answer: the case idempotency keys exist for). Other
requests pass through. It counts what it injected and what it forwarded."""

from __future__ import annotations

import json
import socket
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

# Request n (1-based) of ingestion gets SCHEDULE[n % len(SCHEDULE)].
SCHEDULE = ["pass", "503", "pass", "drop_after", "429", "pass", "drop_before", "pass", "503", "drop_after"]


def _envelope(code: str, message: str) -> bytes:
    return json.dumps({"success": False, "error": {"code": code, "message": message, "correlationId": "proxy",
                                                   "referenceCode": "proxy", "details": {"retryable": True}},
                       "meta": {"timestamp": "2026-01-01T00:00:00Z"}}).encode()


class FaultProxy:
    def __init__(self, upstream: str, retry_after: str = "1") -> None:
        self.upstream = upstream
        self.retry_after = retry_after
        self.injected: Counter[str] = Counter()
        self.forwarded = 0
        self._count = 0
        self._lock = threading.Lock()
        self._client = httpx.Client(timeout=60)
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._forward(b"")

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fault = proxy._next_fault() if self.path.startswith("/v1/usage-events") else "pass"
                if fault == "503":
                    return self._reply(503, _envelope("SERVICE_UNAVAILABLE", "injected"), {})
                if fault == "429":
                    return self._reply(429, _envelope("RATE_LIMIT_EXCEEDED", "injected"), {"Retry-After": proxy.retry_after})
                if fault == "drop_before":
                    return self._drop()
                self._forward(body, drop=fault == "drop_after")

            def _forward(self, body: bytes, drop: bool = False) -> None:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length", "connection")}
                answer = proxy._client.request(self.command, proxy.upstream + self.path, content=body, headers=headers)
                with proxy._lock:
                    proxy.forwarded += 1
                if drop:
                    return self._drop()
                keep = {k: v for k, v in answer.headers.items() if k.lower() in ("content-type", "retry-after", "x-correlation-id")}
                self._reply(answer.status_code, answer.content, keep)

            def _reply(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                headers = {"content-type": "application/json", **{k.lower(): v for k, v in headers.items()}}
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _drop(self) -> None:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def _next_fault(self) -> str:
        with self._lock:
            self._count += 1
            fault = SCHEDULE[self._count % len(SCHEDULE)]
            if fault != "pass":
                self.injected[fault] += 1
            return fault

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._client.close()
