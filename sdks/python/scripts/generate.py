"""Regenerates the read side of the SDK from the service's OpenAPI document, in one command:

    python sdks/python/scripts/generate.py        (from the repository root, in the test venv)

- marginal/models.py: pydantic v2 models of every schema, by datamodel-code-generator.
- marginal/reads.py: one typed method per GET operation an API key may call (sync and async), named by
  READ_ENDPOINTS below (the TypeScript SDK's names in snake_case); path parameters positional,
  query parameters keyword-only. A GET path missing from the table stops the generator.
  A parameter that only selects a non-JSON representation (`format`, CSV) is left out.
  A GET that answers a file (DOWNLOADS below) gets a method returning its bytes, every parameter kept.
  POST operations that only read (POST_READS below: a scenario too rich for a query string) get a
  method taking the request body, a model or a plain dict; DELETE operations an API key may call
  (DELETES below) a method taking the path parameters and answering None.

`--check` compares instead of writing (the unit tests run it) and exits 1 when stale.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "marginal"
OPENAPI = HERE.parents[2] / "openapi" / "openapi.json"
CODEGEN_ARGS = [
    "--input-file-type", "openapi",
    "--output-model-type", "pydantic_v2.BaseModel",
    "--target-python-version", "3.10",
    "--use-standard-collections", "--use-union-operator", "--disable-timestamp",
    "--use-schema-description", "--use-field-description", "--enum-field-as-literal", "all",
    "--strict-nullable", "--extra-fields", "allow",  # a field the server adds later must not break old clients
    "--formatters", "builtin", "--collapse-root-models", "--field-constraints",
]
REPRESENTATION_PARAMS = {"format"}
# Method name → path under /v1: the same names as sdks/typescript/src/reads.ts READ_ENDPOINTS.
READ_ENDPOINTS = {
    "ping": "/ping",
    "usage_events": "/usage/events",
    "usage_event": "/usage/events/{eventId}",
    "usage_summary": "/usage/summary",
    "usage_aggregation": "/usage/aggregation",
    "cost_summary": "/cost-data/summary",
    "cost_by_end_user": "/cost-data/by-end-user",
    "cost_trend": "/cost-data/trend",
    "pending_rate_card": "/cost-data/pending-rate-card",
    "end_users": "/end-users",
    "end_user_summary": "/end-user-costs/{externalId}/summary",
    "end_user_by_model": "/end-user-costs/{externalId}/by-model",
    "end_user_by_provider": "/end-user-costs/{externalId}/by-provider",
    "end_user_by_dimension": "/end-user-costs/{externalId}/by-dimension",
    "end_user_trend": "/end-user-costs/{externalId}/trend",
    "end_user_sessions": "/end-user-costs/{externalId}/sessions",
    "dimension_definitions": "/dimension-data/definitions",
    "dimension_cost_trend": "/dimension-data/cost-trend",
    "dimension_numeric_trend": "/dimension-data/numeric-trend",
    "dimension_numeric_summary": "/dimension-data/numeric-summary",
    "dimension_cost_breakdown": "/dimension-data/cost-breakdown",
    "attribution_by_agent": "/attribution-data/by-agent",
    "attribution_by_dimension": "/attribution-data/by-dimension",
    "attribution_dimension_values": "/attribution-data/dimension-values",
    "agents": "/attribution-data/agents",
    "workflows": "/attribution-data/workflows",
    "sessions": "/attribution-data/sessions",
    "session_tree": "/attribution-data/sessions/{sessionId}/tree",
    "margin_by_end_user": "/margin-data/by-end-user",
    "margin_trend": "/margin-data/trend",
    "margin_summary": "/margin-data/summary",
    "rates": "/rates",
    "own_rates": "/rates/own",
    "unpriced_rates": "/rates/unpriced",
    "budgets": "/budgets",
    "budget": "/budgets/{budgetId}",
    "budget_check": "/budgets/check",
    "reconciliation": "/reconciliation",
    "anomalies": "/anomalies",
    "export_runs": "/exports/runs",
    "forecast": "/forecasts",
    "price_advice": "/forecasts/price-advice",
    "what_if_scenarios": "/what-if/scenarios",
    "what_if_scenario": "/what-if/scenarios/{scenarioId}",
}

# Method name → path under /v1 of a GET whose answer is a file (CSV or Parquet): the method returns its bytes.
DOWNLOADS = {
    "focus_export": "/exports/focus",
}

# Method name → path under /v1 of a POST with a JSON body: reads (the body is the question; nothing
# changes), and saving a what-if scenario (a row of the organization's, nothing else).
POST_READS = {
    "what_if": "/what-if",
    "save_what_if_scenario": "/what-if/scenarios",
    "run_what_if_scenario": "/what-if/scenarios/{scenarioId}/run",
}

# Method name → path under /v1 of a DELETE an API key may call (204, no body).
DELETES = {
    "delete_what_if_scenario": "/what-if/scenarios/{scenarioId}",
}


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


def ref_name(schema: dict) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if ref else None


def resolve_model(doc: dict, schema: dict) -> str:
    """The model class a response schema validates into, following pure $ref aliases."""
    name = ref_name(schema)
    if name is None:
        for option in schema.get("anyOf", []):  # JSON model or a non-JSON representation
            if ref_name(option):
                return resolve_model(doc, option)
        raise ValueError(f"unsupported response schema {schema}")
    target = doc["components"]["schemas"][name]
    return resolve_model(doc, target) if "$ref" in target and "properties" not in target else name


def param_type(doc: dict, param: dict) -> str:
    schema = param["schema"]
    name = ref_name(schema)
    if name:
        schema = doc["components"]["schemas"][name]
    if "enum" in schema:
        return "Literal[" + ", ".join(repr(v) for v in schema["enum"]) + "]"
    if schema.get("type") == "integer":
        return "int"
    if param["name"].endswith("_date") or param["name"] == "as_of":
        return "DateParam"
    return "str"


def session_only(op: dict) -> bool:
    """An operation only a signed-in person's session cookie may call (never an API key)."""
    security = op.get("security") or []
    return bool(security) and all(set(req) == {"session"} for req in security)


def operations(doc: dict) -> list[dict]:
    names = {path: name for name, path in READ_ENDPOINTS.items()}
    ops = []
    for path, methods in doc["paths"].items():
        op = methods.get("get")
        # Admin routes and people's own (session-only: sign-in state, members, audit) are not the SDK's.
        if op is None or path.startswith("/admin") or session_only(op) or path in DOWNLOADS.values():
            continue
        ok = next(code for code in op["responses"] if code.startswith("2"))
        schema = op["responses"][ok]["content"]["application/json"]["schema"]
        if path not in names:
            raise SystemExit(f"GET {path} has no method name: add it to READ_ENDPOINTS in {__file__}")
        params = [p for p in op.get("parameters", []) if p["name"] not in REPRESENTATION_PARAMS]
        ops.append({
            "name": names[path],
            "path": path,
            "model": resolve_model(doc, schema),
            "doc": " ".join((op.get("summary") or op.get("description") or "").split("\n\n")[0].split()).replace("\\", "\\\\"),
            "path_params": [p for p in params if p["in"] == "path"],
            "query_params": [p for p in params if p["in"] == "query"],
        })
    missing = set(READ_ENDPOINTS.values()) - {op["path"] for op in ops}
    if missing:
        raise SystemExit(f"READ_ENDPOINTS names paths the document has no GET for: {sorted(missing)}")
    return ops


def method_source(doc: dict, op: dict, is_async: bool) -> str:
    args = ["self"] + [f"{snake(p['name'])}: str" for p in op["path_params"]]
    query = op["query_params"]
    if query:
        args.append("*")
        required = [p for p in query if p.get("required")]
        optional = [p for p in query if not p.get("required")]
        args += [f"{p['name']}: {param_type(doc, p)}" for p in required]
        args += [f"{p['name']}: {param_type(doc, p)} | None = None" for p in optional]
    path = op["path"]
    for p in op["path_params"]:
        path = path.replace("{" + p["name"] + "}", "{_segment(" + snake(p["name"]) + ")}")
    path_expr = f'f"{path}"' if op["path_params"] else f'"{path}"'
    params = "{" + ", ".join(f'"{p["name"]}": _param({p["name"]})' for p in query) + "}"
    call = f"self._transport.get({path_expr}, {params})"
    lines = [
        f"    {'async ' if is_async else ''}def {op['name']}({', '.join(args)}) -> models.{op['model']}:",
        f'        """GET /v1{op["path"]}: {op["doc"]}"""' if op["doc"] else f'        """GET /v1{op["path"]}"""',
        f"        return models.{op['model']}.model_validate({'await ' if is_async else ''}{call})",
    ]
    return "\n".join(lines)


def post_read_source(doc: dict, name: str, path: str, is_async: bool) -> str:
    op = doc["paths"][path]["post"]
    body = ref_name(op["requestBody"]["content"]["application/json"]["schema"])
    ok = next(code for code in op["responses"] if code.startswith("2"))
    model = resolve_model(doc, op["responses"][ok]["content"]["application/json"]["schema"])
    summary = " ".join((op.get("summary") or "").split())
    path_params, path_expr = path_expression(path)
    call = f"self._transport.post({path_expr}, _body(body))"
    args = ", ".join(["self", *(f"{snake(p)}: str" for p in path_params), f"body: models.{body} | Mapping[str, Any]"])
    return "\n".join([
        f"    {'async ' if is_async else ''}def {name}({args}) -> models.{model}:",
        f'        """POST /v1{path}: {summary}"""',
        f"        return models.{model}.model_validate({'await ' if is_async else ''}{call})",
    ])


def path_expression(path: str) -> tuple[list[str], str]:
    """The path's parameters and the f-string that fills them, each as a quoted path segment."""
    params = re.findall(r"\{(\w+)\}", path)
    expr = path
    for p in params:
        expr = expr.replace("{" + p + "}", "{_segment(" + snake(p) + ")}")
    return params, (f'f"{expr}"' if params else f'"{expr}"')


def delete_source(doc: dict, name: str, path: str, is_async: bool) -> str:
    op = doc["paths"][path]["delete"]
    summary = " ".join((op.get("summary") or "").split())
    params, expr = path_expression(path)
    args = ", ".join(["self", *(f"{snake(p)}: str" for p in params)])
    return "\n".join([
        f"    {'async ' if is_async else ''}def {name}({args}) -> None:",
        f'        """DELETE /v1{path}: {summary}"""',
        f"        {'await ' if is_async else ''}self._transport.delete({expr})",
    ])


def download_source(doc: dict, name: str, path: str, is_async: bool) -> str:
    op = doc["paths"][path]["get"]
    query = op.get("parameters", [])
    required = [p for p in query if p.get("required")]
    optional = [p for p in query if not p.get("required")]
    args = ["self", "*", *(f"{p['name']}: {param_type(doc, p)}" for p in required), *(f"{p['name']}: {param_type(doc, p)} | None = None" for p in optional)]
    params = "{" + ", ".join(f'"{p["name"]}": _param({p["name"]})' for p in query) + "}"
    summary = " ".join((op.get("summary") or "").split())
    return "\n".join([
        f"    {'async ' if is_async else ''}def {name}({', '.join(args)}) -> bytes:",
        f'        """GET /v1{path}: {summary}: the file as bytes"""',
        f"        return {'await ' if is_async else ''}self._transport.get_bytes(\"{path}\", {params})",
    ])


def reads_source(doc: dict) -> str:
    ops = operations(doc)
    head = '''"""Typed read methods, one per GET endpoint of the API. Generated by scripts/generate.py from
openapi/openapi.json; do not edit by hand, regenerate."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any, Literal, Mapping, Union
from urllib.parse import quote

from pydantic import BaseModel

from . import models
from .events import wire_value as _param

if TYPE_CHECKING:
    from .transport import AsyncTransport, SyncTransport

DateParam = Union[str, _dt.date, _dt.datetime]
"""ISO 8601 text, or a date (UTC midnight), or a datetime (naive = UTC)."""


def _segment(value: object) -> str:
    # Ids may come back from send() as UUID objects; a path segment is their text.
    return quote(str(value), safe="")


def _body(body: object) -> object:
    # A model is sent as the JSON the server reads (fields left unset are left out).
    return body.model_dump(mode="json", exclude_none=True) if isinstance(body, BaseModel) else body


READ_ENDPOINTS = ''' + repr({**{op["name"]: op["path"] for op in ops}, **DOWNLOADS}) + '''
"""Every read method: its name and its path under /v1."""
'''
    sync = "\n\n".join([
        *(method_source(doc, op, False) for op in ops),
        *(post_read_source(doc, n, p, False) for n, p in POST_READS.items()),
        *(delete_source(doc, n, p, False) for n, p in DELETES.items()),
        *(download_source(doc, n, p, False) for n, p in DOWNLOADS.items()),
    ])
    asyn = "\n\n".join([
        *(method_source(doc, op, True) for op in ops),
        *(post_read_source(doc, n, p, True) for n, p in POST_READS.items()),
        *(delete_source(doc, n, p, True) for n, p in DELETES.items()),
        *(download_source(doc, n, p, True) for n, p in DOWNLOADS.items()),
    ])
    return (
        head
        + "\n\nclass ReadMethods:\n    _transport: SyncTransport\n\n" + sync
        + "\n\n\nclass AsyncReadMethods:\n    _transport: AsyncTransport\n\n" + asyn + "\n"
    )


def generate(out_dir: Path) -> None:
    doc = json.loads(OPENAPI.read_text())
    subprocess.run(
        [sys.executable, "-m", "datamodel_code_generator", "--input", str(OPENAPI), "--output", str(out_dir / "models.py"), *CODEGEN_ARGS],
        check=True,
    )
    (out_dir / "reads.py").write_text(reads_source(doc))


def main() -> int:
    if "--check" not in sys.argv:
        generate(PACKAGE)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        stale = [n for n in ("models.py", "reads.py") if (Path(tmp) / n).read_text() != (PACKAGE / n).read_text()]
    if stale:
        print(f"stale: {', '.join(stale)}; run python sdks/python/scripts/generate.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
