"""One small generated home built once per test module (6 sessions, seed 3): forget, on/off and
exclusion tests each copy it before they change anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from warehouse.api import Warehouse


def build_small_home(tmp_path_factory: pytest.TempPathFactory, name: str) -> dict[str, Any]:
    """{"wh": the built Warehouse, "src": its generated sources}."""
    out: Path = tmp_path_factory.mktemp(name)
    Warehouse.generate_fixtures(out / "src", sessions=6, seed=3)
    wh = Warehouse.open(out / "src" / "dsh", out / "src" / "autoclaw", out / "akw")
    wh.reindex()
    return {"wh": wh, "src": out / "src"}
