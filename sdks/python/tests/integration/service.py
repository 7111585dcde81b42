"""The real all-in-one service as a child process (`node --import tsx scripts/start.ts` from the
repository root: its own Kafka broker, schema registry, PGlite and DuckDB lake in a temp
DATA_DIR, on free loopback ports), and the admin API calls the tests make tenants with."""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, Optional

import httpx

REPO = Path(__file__).resolve().parents[4]
START_TIMEOUT = 240  # the first start on a clean machine fetches the Kafka jars with Maven


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Service:
    def __init__(self, data_dir: Path) -> None:
        self.admin_token = "adm_" + secrets.token_hex(16)
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / "service.log"
        env = {
            **os.environ,
            "DATA_DIR": str(data_dir / "data"),
            "PORT": str(self.port),
            "KAFKA_PORT": str(free_port()),
            "SCHEMA_REGISTRY_PORT": str(free_port()),
            "MARGINAL_ADMIN_TOKEN": self.admin_token,
            "MARGINAL_MASTER_KEY": secrets.token_hex(32),
            # The tests send thousands of events and poll the read API; the limits are not under test.
            "RATE_LIMIT_INGEST_PER_MINUTE": "100000",
            "RATE_LIMIT_READ_PER_15_MINUTES": "100000",
            "PROCESSOR_FLUSH_MAX_DELAY_MS": "200",
            "LOG_LEVEL": "warn",
        }
        if not (REPO / "api" / "generated" / "routes.ts").exists():
            subprocess.run(["node", "--import", "tsx", "scripts/tsoa-generate.ts", "--routes"], cwd=REPO, check=True)
        self._log = open(self.log_path, "w")
        # Its own process group: teardown can stop the service and the broker it started, nothing else.
        self.process = subprocess.Popen(
            ["node", "--import", "tsx", "scripts/start.ts"], cwd=REPO, env=env,
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        self._wait_ready()
        self.admin = httpx.Client(base_url=self.origin + "/v1/admin", headers={"Authorization": f"Bearer {self.admin_token}"}, timeout=30)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited ({self.process.returncode}):\n{self.log_path.read_text()[-4000:]}")
            if "Marginal is ready" in self.log_path.read_text():
                return
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"the service did not start in {START_TIMEOUT} s:\n{self.log_path.read_text()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self._log.close()

    # Admin API (README "Admin quick start").
    def create_tenant(self, credits: int = 0, name: Optional[str] = None) -> "Tenant":
        org = self._admin("POST", "/organizations", {"name": name or "sdk-test-" + secrets.token_hex(4)})
        org_id = org["organization_id"]
        if credits:
            self.grant_credits(org_id, credits)
        key = self._admin("POST", f"/organizations/{org_id}/api-keys",
                          {"scopes": ["usage:write", "usage:read", "costs:read", "revenue:read", "dimensions:read"]})
        return Tenant(org_id, key["api_key"], key["signing_secret"])

    def grant_credits(self, org_id: str, amount: int) -> None:
        self._admin("POST", f"/organizations/{org_id}/credits", {"amount": amount})

    def credit_balance(self, org_id: str) -> int:
        return int(self._admin("GET", f"/organizations/{org_id}/credits")["balance"])

    def add_rate_card(self, org_id: str, **card: Any) -> None:
        self._admin("POST", f"/organizations/{org_id}/rate-cards", card)

    def add_dimension(self, org_id: str, **definition: Any) -> None:
        self._admin("POST", f"/organizations/{org_id}/dimensions", definition)

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        response = self.admin.request(method, path, json=body)
        assert response.is_success, f"{method} {path}: {response.status_code} {response.text}"
        return response.json()


class Tenant:
    def __init__(self, org_id: str, api_key: str, signing_secret: str) -> None:
        self.org_id = org_id
        self.api_key = api_key
        self.signing_secret = signing_secret
