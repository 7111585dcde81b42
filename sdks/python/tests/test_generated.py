"""The read models and methods are generated from openapi/openapi.json and must match it."""

import json
import subprocess
import sys
from pathlib import Path

from marginal import AsyncMarginal, Marginal
from marginal.reads import READ_ENDPOINTS

PYTHON_SDK = Path(__file__).resolve().parents[1]
OPENAPI = PYTHON_SDK.parents[1] / "openapi" / "openapi.json"


def test_generated_files_are_up_to_date():
    run = subprocess.run([sys.executable, str(PYTHON_SDK / "scripts" / "generate.py"), "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def session_only(op: dict) -> bool:
    """People's own operations (sign-in state, members, audit): a session cookie, never an API key."""
    security = op.get("security") or []
    return bool(security) and all(set(req) == {"session"} for req in security)


def test_every_read_endpoint_an_api_key_may_call_has_a_sync_and_an_async_method():
    doc = json.loads(OPENAPI.read_text())
    gets = {
        path
        for path, methods in doc["paths"].items()
        if "get" in methods and not path.startswith("/admin") and not session_only(methods["get"])
    }
    assert len(gets) >= 25
    assert set(READ_ENDPOINTS.values()) == gets
    for name in READ_ENDPOINTS:
        assert callable(getattr(Marginal, name)) and callable(getattr(AsyncMarginal, name))
