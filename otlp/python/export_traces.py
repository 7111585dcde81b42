"""One agent trace made by real Python instrumentation, exported to Marginal over OTLP/HTTP.

The OpenTelemetry Python SDK with its OTLP/HTTP protobuf exporter, configured only by the
standard environment (OTEL_EXPORTER_OTLP_ENDPOINT=<origin>/otlp, OTEL_EXPORTER_OTLP_HEADERS=
Authorization=Bearer%20<key>), and OpenLLMetry's OpenAI instrumentation around the official
`openai` client, pointed at a local server that answers like the provider. The spans are kept
in memory and exported twice (a re-sent export). Prints one JSON line describing the spans and
the usage the fake provider reported, for the test to work out the expected values.
Run by test/integration/otlp-python.test.ts with .venv/bin/python.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.instrumentation.openai import OpenAIInstrumentor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

# What the fake provider answers: inclusive counts, as OpenAI reports them.
USAGE = {
    "prompt_tokens": 1200,
    "completion_tokens": 340,
    "total_tokens": 1540,
    "prompt_tokens_details": {"cached_tokens": 400},
    "completion_tokens_details": {"reasoning_tokens": 40},
}
RESPONSE_MODEL = "gpt-4o-2024-08-06"


class FakeOpenAI:
    """A local chat-completions endpoint answering one fixed completion."""

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                body = json.dumps(
                    {
                        "id": "chatcmpl-otlp-test",
                        "object": "chat.completion",
                        "created": 1_700_000_000,
                        "model": RESPONSE_MODEL,
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": "42"}, "finish_reason": "stop"}],
                        "usage": USAGE,
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main() -> int:
    provider_server = FakeOpenAI()
    memory = InMemorySpanExporter()
    tracer_provider = TracerProvider(resource=Resource.create({"service.name": "py-agent", "enduser.id": "dave"}))
    tracer_provider.add_span_processor(SimpleSpanProcessor(memory))
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider)
    tracer = tracer_provider.get_tracer("marginal-otlp-python-test")
    client = openai.OpenAI(api_key="sk-test", base_url=provider_server.base_url)
    try:
        with tracer.start_as_current_span(
            "invoke_agent researcher",
            attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "researcher"},
        ):
            with tracer.start_as_current_span(
                "execute_tool lookup", attributes={"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup"}
            ):
                client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "6 × 7?"}])
    finally:
        provider_server.close()

    spans = memory.get_finished_spans()
    exporter = OTLPSpanExporter()  # endpoint and headers from OTEL_EXPORTER_OTLP_* only
    results = [exporter.export(spans), exporter.export(spans)]  # the second is a re-sent export
    exporter.shutdown()
    print(
        json.dumps(
            {
                "export_results": [r.name for r in results],
                "usage": USAGE,
                "response_model": RESPONSE_MODEL,
                "spans": [
                    {
                        "name": s.name,
                        "trace_id": format(s.context.trace_id, "032x"),
                        "span_id": format(s.context.span_id, "016x"),
                        "parent_span_id": format(s.parent.span_id, "016x") if s.parent else None,
                        "start_ns": str(s.start_time),
                        "end_ns": str(s.end_time),
                        "attributes": {k: v for k, v in (s.attributes or {}).items() if k.startswith("gen_ai.usage")},
                    }
                    for s in spans
                ],
            }
        )
    )
    return 0 if all(r == SpanExportResult.SUCCESS for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
