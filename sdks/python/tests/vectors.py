"""The shared test vectors of sdks/test-vectors (never edited here)."""

from __future__ import annotations

import json
from pathlib import Path

VECTORS = Path(__file__).resolve().parents[2] / "test-vectors"


def load(name: str) -> list[dict]:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))["vectors"]


def ids(vectors: list[dict]) -> list[str]:
    return [v["name"] for v in vectors]
