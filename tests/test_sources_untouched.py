"""AC-11: sources stay untouched. Every source file (DSH logs, projections, registry, skills, workspace
code, the AutoClaw DB with a live `-wal` and `-shm`) is hashed (sha256 + size + mtime) before and after a
reindex + search + get + dispatch (+ forget) cycle, and must be identical; no file appears or vanishes.

The AutoClaw app is "running" during the cycle: a writer connection holds the database in WAL mode
with un-checkpointed frames, so `runtime.sqlite-wal` and `-shm` exist. A plain `mode=ro` open would
write reader marks into that `-shm` (and create `-wal`/`-shm` when missing); the extractor opens it with
`readonly_shm=1` / `immutable=1` instead (extract/autoclaw/sqlite_open.py), so `-shm` is byte-identical
too. One caveat, measured here: inside ONE process SQLite shares a single `-shm` mapping between all
connections to a file, so a reader living in the app's own process writes read marks into `-shm`;
the app therefore runs in its own process, as it does for real. docs/operations.md says the same.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import akw_fixtures

from warehouse.api import Warehouse

APP = """
import sqlite3, sys
app = sqlite3.connect(sys.argv[1])
app.execute("PRAGMA journal_mode=WAL")
app.execute("PRAGMA wal_autocheckpoint=0")
table = app.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchone()[0]
app.execute(f"CREATE TABLE IF NOT EXISTS akw_test_marker AS SELECT count(*) AS n FROM {table}")
app.commit()
print("ready", flush=True)
sys.stdin.read()
"""


def snapshot(*roots: Path) -> dict[str, tuple[int, int, str]]:
    """path -> (size, mtime_ns, sha256) of every file (a symlink by its own stat and target)."""
    out: dict[str, tuple[int, int, str]] = {}
    for root in roots:
        for p in sorted(root.rglob("*")):
            st = os.lstat(p)
            if p.is_symlink():
                out[str(p)] = (st.st_size, st.st_mtime_ns, "link:" + os.readlink(p))
            elif p.is_file():
                out[str(p)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            elif p.is_dir():
                out[str(p) + "/"] = (0, st.st_mtime_ns, "dir")
    return out


def test_sources_are_byte_identical_after_a_full_cycle(tmp_path: Path) -> None:
    src = tmp_path / "src"
    akw_fixtures.generate(src, sessions=6, seed=13)
    db = next((src / "autoclaw" / "accounts").glob("*/runtime/runtime.sqlite"))
    # the live app, in its own process (in one process SQLite shares one -shm mapping between connections,
    # so our read-only open would write its read marks through the app's writable mapping)
    app = subprocess.Popen([sys.executable, "-c", APP, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True)
    assert app.stdout is not None and app.stdout.readline().strip() == "ready"
    try:
        assert Path(f"{db}-wal").stat().st_size > 0 and Path(f"{db}-shm").exists()
        roots = [src / "dsh", src / "autoclaw", src / "workspaces", src / "outside"]
        kinds = {"session.v4.jsonl.zstd", "workspace.json", "SKILL.md", "runtime.sqlite-wal", "runtime.sqlite-shm"}
        before = snapshot(*roots)
        assert kinds <= {Path(k).name for k in before}
        assert any("/session_projcache/" in k for k in before) and any("/workspaces/" in k for k in before)

        wh = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "akw")
        assert wh.reindex()["outcome"] == "published"
        resp = wh.search_text("mysql access restore", limit=5)
        for it in resp["lanes"]["episodes"]["items"][:2]:
            wh.get("episode", it["id"])  # an episode card re-reads the session log from the source
        for it in resp["lanes"]["code"]["items"][:2]:
            wh.get("code", it["id"])
        for it in (resp["lanes"].get("skills") or {}).get("items", [])[:2]:
            wh.get("skill", it["name"], source=it.get("id"))
        req = {"schema": "knowledge.dispatch/v1", "dispatch_id": "ac11-1",
               "task": {"title": "restore mysql access", "text": "root gets ERROR 1045"}, "target": "auto"}
        wh.dispatch({**req, "dry_run": True})
        wh.dispatch({**req, "dry_run": False, "commit": True, "confirm": True})
        # AC-11 forget spot (i13-forget): forget one session and re-index; the source must stay as it was
        if hasattr(wh, "forget"):
            sid = next((src / "dsh" / "sessions").glob("*/*")).name
            wh.forget("session", sid, confirm=True)
        wh.reindex(mode="full")
        wh.reindex(mode="verify")
        after = snapshot(*roots)
    finally:
        app.communicate("")  # the app exits (and checkpoints) only now
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert not changed, sorted(changed)[:10]
