"""`akw bench --team`: the team phases push a generated home and build from its snapshot (small scale only)."""

from __future__ import annotations

from pathlib import Path

import pytest

import akw_fixtures
from warehouse.bench.run import _team_phases

pytestmark = pytest.mark.team


def test_team_bench_phases_report_push_throughput_and_snapshot_build(tmp_path: Path, team_catalog: dict[str, str],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGPASSFILE", team_catalog["passfile"])
    akw_fixtures.generate(tmp_path / "src", sessions=6, seed=5)
    base = {"dsh": str(tmp_path / "src" / "dsh"), "autoclaw": str(tmp_path / "src" / "autoclaw")}
    t = _team_phases(base, tmp_path / "copy", team_catalog["dsn"], 1.0, lambda _m: None)
    push, build = t["push"], t["build_from_snapshot"]
    assert push["ok"] and push["units_pushed"] > 0 and push["units_per_s"] > 0 and push["mb_per_s"] > 0
    assert build["outcome"] == "published" and build["snapshot_id"] >= push["snapshot_id"] and build["docs"] > 0
    assert t["data_path_bytes"] > 0 and t["local_cold_build_s"] == 1.0
