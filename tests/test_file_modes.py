"""Files and logs (issue 13): every file under AKW_HOME is 0600 and every folder 0700, whatever the
umask, including what DuckDB writes (generations, spill), the lake and the outbox."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import akw_fixtures
from cli_run import akw_json

SPILL = "SELECT count(*), max(m) FROM (SELECT i, md5(i::VARCHAR) AS m FROM range(2000000) r(i) ORDER BY m)"


def _modes(home: Path) -> dict[str, int]:
    out = {".": stat.S_IMODE(home.stat().st_mode)}
    for p in home.rglob("*"):
        out[p.relative_to(home).as_posix() + ("/" if p.is_dir() else "")] = stat.S_IMODE(os.lstat(p).st_mode)
    return out


def test_every_file_is_0600_and_every_folder_0700_under_umask_000(tmp_path: Path) -> None:
    akw_fixtures.generate(tmp_path / "src", sessions=4, seed=2)
    home = tmp_path / "akw"
    env = {"DSH_HOME": str(tmp_path / "src" / "dsh"), "AUTOCLAW_ROOT": str(tmp_path / "src" / "autoclaw"),
           "AKW_HOME": str(home), "AKW_QUERY__SPILL_LIMIT": "4GB"}

    def run(*args: str, stdin: str | None = None) -> dict:
        """The real app in this process (tests/cli_run.py) under umask 000, as a separate `akw` process would be
        (each was ~0.5 s of start-up here); the build child it starts inherits the umask."""
        code, doc = akw_json(*args, env=env, stdin=stdin)
        assert code == 0, doc
        return doc

    req = {"schema": "knowledge.dispatch/v1", "dispatch_id": "modes-1", "task": {"title": "restore mysql access",
           "text": "root gets ERROR 1045"}, "target": "auto", "dry_run": False, "commit": True, "confirm": True}
    old = os.umask(0)
    try:
        run("config", "set", "semantic.enabled=false")
        run("reindex")
        run("sql", SPILL)
        run("dispatch", "--request", "-", stdin=json.dumps(req))
        run("reindex", "--mode", "full")
        run("report", "--out", str(home / "reports"))  # issue 25: was 0777/0666 under umask 000
    finally:
        os.umask(old)
    modes = _modes(home)
    assert any(k.startswith("reports/report-") for k in modes)
    assert any(k.startswith("lake/bronze/") for k in modes) and any(k.startswith("outbox/") for k in modes)
    assert any(k.startswith("generations/gen-") for k in modes)
    bad = {k: oct(m) for k, m in modes.items() if m != (0o700 if k == "." or k.endswith("/") else 0o600)}
    assert not bad, bad
    assert len(modes) > 30
