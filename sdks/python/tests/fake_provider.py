"""A local HTTP server that answers like OpenAI and Anthropic, from the recorded shapes of
sdks/test-vectors/providers.json: the test names the vector to play next; JSON bodies as
recorded, SSE streams written event by event. It keeps the request bodies it received."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

PATHS = {"chat.completions": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}


class FakeProvider:
    def __init__(self) -> None:
        self.vector: Optional[dict[str, Any]] = None
        self.requests: list[dict[str, Any]] = []
        provider = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                provider.requests.append(body)
                vector = provider.vector
                if vector is None or self.path != PATHS[vector["api"]]:
                    self._send(404, "application/json", b'{"error": {"message": "no vector for this path"}}')
                elif vector["stream"]:
                    self._send(200, "text/event-stream", b"".join(_sse(e) for e in vector["sse"]))
                else:
                    self._send(200, "application/json", json.dumps(vector["response"]).encode())

            def _send(self, status: int, content_type: str, payload: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def play(self, vector: dict[str, Any]) -> None:
        self.vector = vector

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _sse(event: dict[str, Any]) -> bytes:
    head = f"event: {event['event']}\n" if event.get("event") else ""
    data = event["data"] if event["data"] == "[DONE]" else json.dumps(event["data"])
    return f"{head}data: {data}\n\n".encode()


def call_provider(client: Any, vector: dict[str, Any]) -> Any:
    """The provider SDK method for the vector's api, called with the recorded request."""
    api = vector["api"]
    method = {"chat.completions": lambda: client.chat.completions.create,
              "responses": lambda: client.responses.create,
              "messages": lambda: client.messages.create}[api]()
    return method(**vector["request"])
