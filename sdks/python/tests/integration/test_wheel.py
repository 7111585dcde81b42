"""The SDK as a user installs it: a wheel built from sdks/python, installed into a scratch venv
outside the repository, whose python imports `marginal`, sends a signed event to the running
service and reads it back with its cost."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
import zipfile
from decimal import Decimal
from pathlib import Path

import pytest

SDK = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("installed_client.py")
# The scratch venv must see only what it installed: no repository on its path, no parent venv.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def run(*args: str | Path, cwd: Path, env: dict[str, str] = CLEAN_ENV, timeout: float = 300) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args[:3]} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    # tmp_path_factory is under the system temp directory, outside the repository.
    root = tmp_path_factory.mktemp("marginal-wheel")
    assert not root.resolve().is_relative_to(SDK.parents[1])
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def wheel(scratch) -> Path:
    out = scratch / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", SDK, "-w", out, cwd=scratch)
    (built,) = out.glob("marginal-*.whl")
    return built


@pytest.fixture(scope="module")
def scratch_python(scratch, wheel) -> Path:
    env_dir = scratch / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    run(python, "-m", "pip", "install", "--disable-pip-version-check", "-q", wheel, cwd=scratch)
    return python


def test_the_wheel_holds_every_module_of_the_package_and_its_type_marker(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {f"marginal/{p.relative_to(SDK / 'marginal').as_posix()}" for p in (SDK / "marginal").rglob("*.py")}
    assert "marginal/__init__.py" in modules
    assert modules | {"marginal/py.typed"} == {n for n in names if not n.startswith("marginal-")}


def test_installed_from_the_wheel_it_sends_an_event_and_reads_back_its_cost(service, scratch, scratch_python):
    tenant = service.create_tenant(credits=10)
    # Rates in USD per million tokens.
    service.add_rate_card(tenant.org_id, model_slug="wheel-model", effective_from="2020-01-01T00:00:00Z",
                          input_cost_per_million="2.5", output_cost_per_million="10", cache_read_cost_per_million="0.3")
    child = scratch / "send_and_read.py"
    shutil.copyfile(CHILD, child)
    env = {**CLEAN_ENV, "MARGINAL_BASE_URL": service.origin, "MARGINAL_API_KEY": tenant.api_key,
           "MARGINAL_SIGNING_SECRET": tenant.signing_secret}
    answer = json.loads(run(scratch_python, child, cwd=scratch, env=env, timeout=150).strip().splitlines()[-1])

    assert Path(answer["module"]).resolve().is_relative_to((scratch / "venv").resolve())
    ingest, event = answer["ingest"], answer["event"]
    assert ingest["status"] == "accepted" and len(ingest["event_id"]) == 36
    assert (event["id"], event["status"], event["model"], event["user_id"]) == (ingest["event_id"], "completed", "wheel-model", "wheel")
    # 1,200 input × 2.5 + 300 output × 10 + 4,000 cache reads × 0.3, per million:
    # 0.003 + 0.003 + 0.0012 = 0.0072 USD.
    cost = event["cost"]
    assert Decimal(cost["input_cost"]) == Decimal("0.003")
    assert Decimal(cost["output_cost"]) == Decimal("0.003")
    assert Decimal(cost["cache_read_cost"]) == Decimal("0.0012")
    assert Decimal(cost["total_cost"]) == Decimal("0.0072")
