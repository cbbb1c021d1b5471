"""`akw bench --team`: the team phases push a generated home and build from its snapshot (small scale only)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.team


def test_akw_bench_only_team_starts_and_stops_its_own_cluster(tmp_path: Path) -> None:
    """No --catalog: the bench starts a throwaway PostgreSQL cluster, pushes, builds from the snapshot, stops it
    (the team phases' report too: one run of them, not a second one on the shared catalog)."""
    import shutil
    import tempfile

    from warehouse.team.scratch_pg import bindir_of_postgres

    if bindir_of_postgres() is None:
        pytest.skip("PostgreSQL is not installed")
    # the bench's scratch cluster goes to a temp folder of its own (short: the socket path has a limit), so
    # another worker's team tests, which start and remove clusters meanwhile, are not counted
    own_tmp = Path(tempfile.mkdtemp(prefix="akwt-"))
    try:  # removed whatever the outcome: a failed run must not leave its folder (or a cluster's) in /tmp
        _bench_in(own_tmp, tmp_path)
    finally:
        shutil.rmtree(own_tmp, ignore_errors=True)


def _bench_in(own_tmp: Path, tmp_path: Path) -> None:
    import glob
    import json
    import os
    import subprocess
    import sys

    own_tmp.chmod(0o755)  # as /tmp: the server may run as the postgres user (when the tests run as root)
    made = own_tmp.stat().st_mtime_ns
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AKW_", "PG"))} | {"TMPDIR": str(own_tmp)}
    p = subprocess.run([str(Path(sys.executable).parent / "akw"), "bench", "--scale", "small", "--only", "team",
                        "--work", str(tmp_path / "work"), "--out", str(tmp_path / "out"), "--json"],
                       capture_output=True, text=True, env=env, timeout=900)
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads(p.stdout)
    assert r["only"] == "team" and "noop" not in r["build"] and "search" not in r
    push, build = r["team"]["push"], r["team"]["build_from_snapshot"]
    assert push["ok"] and push["units_pushed"] > 0 and push["units_per_s"] > 0 and push["mb_per_s"] > 0
    assert build["outcome"] == "published" and build["snapshot_id"] >= push["snapshot_id"] and build["docs"] > 0
    assert r["team"]["data_path_bytes"] > 0
    assert r["team"]["local_cold_build_s"] == r["build"]["cold"]["median_s"] > 0
    assert Path(r["report_file"]).name.endswith("-team.json") and Path(r["report_file"]).is_file()
    # its cluster was made there (the folder changed) and is stopped and removed
    assert own_tmp.stat().st_mtime_ns > made and not glob.glob(str(own_tmp / "akw-pg-*"))
    bad = subprocess.run([str(Path(sys.executable).parent / "akw"), "bench", "--only", "search", "--work",
                          str(tmp_path / "work"), "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode != 0 and json.loads(bad.stdout)["errors"][0]["code"] == "KNOWLEDGE_INVALID_REQUEST"
