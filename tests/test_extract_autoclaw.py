"""AutoClaw extractor: read-only access, incremental parts, schema drift, locks, corruption, exclusions."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from warehouse.core.errors import Code
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.extract.autoclaw import job as autoclaw
from warehouse.extract.autoclaw.sqlite_open import OpenPolicy
from warehouse.extract.autoclaw.tables import to_ms
from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore

SCHEMA = """
CREATE TABLE schema_migrations(sequence INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE work_sessions(session_id TEXT PRIMARY KEY, title TEXT, workspace TEXT, created_at TEXT, updated_at TEXT,
  deleted_at TEXT, capability_composition_json TEXT, pinned INTEGER DEFAULT 0);
CREATE TABLE work_runs(run_id TEXT PRIMARY KEY, session_id TEXT, text TEXT, response TEXT, model TEXT, status TEXT,
  usage_json TEXT, started_at TEXT, finished_at TEXT);
CREATE TABLE work_events(event_id TEXT PRIMARY KEY, session_id TEXT, run_id TEXT, type TEXT, payload TEXT,
  created_at TEXT);
CREATE TABLE neutral_session_entries(session_id TEXT NOT NULL, entry_id TEXT NOT NULL, session_seq INTEGER,
  run_id TEXT, entry_type TEXT, payload TEXT, committed_at TEXT, PRIMARY KEY(session_id, entry_id)) WITHOUT ROWID;
CREATE TABLE memory_assets(memory_id TEXT PRIMARY KEY, scope TEXT, workspace TEXT, lifecycle TEXT, title TEXT,
  content TEXT, source_session_id TEXT, source_entry_id TEXT, supporting_quote TEXT, content_hash TEXT,
  supersedes_memory_id TEXT, created_at TEXT, updated_at TEXT);
CREATE TABLE agents(agent_id TEXT PRIMARY KEY, name TEXT, description TEXT, instructions TEXT, model TEXT,
  created_at TEXT, updated_at TEXT);
CREATE TABLE agent_memory_snapshots(snapshot_id TEXT PRIMARY KEY, agent_id TEXT, content TEXT, created_at TEXT);
CREATE TABLE collaboration_run_agent_participations(participation_id TEXT PRIMARY KEY, run_id TEXT, agent_id TEXT,
  name TEXT, description TEXT, instructions TEXT, assignment TEXT, reason TEXT, outcome TEXT,
  contribution_evidence TEXT, created_at TEXT);
CREATE TABLE collaboration_run_agent_attempts(attempt_id TEXT PRIMARY KEY, participation_id TEXT, agent_id TEXT,
  status TEXT, error TEXT, started_at TEXT, finished_at TEXT);
"""
BASE = datetime(2026, 9, 1, tzinfo=UTC)
FAST = OpenPolicy(busy_timeout_s=0.05, tries=3, backoff_s=0.02)
TABLE_UNITS = ("work_sessions", "work_runs", "work_events", "neutral_session_entries", "memory_assets", "agents",
               "agent_memory_snapshots", "collaboration_run_agent_participations",
               "collaboration_run_agent_attempts")


def iso(minutes: float) -> str:
    return (BASE + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def insert(con: sqlite3.Connection, table: str, **row: Any) -> None:
    values = [json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v for v in row.values()]
    con.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", values)


def make_db(root: Path, account: str = "acc1", journal: str = "wal", schema: str = SCHEMA) -> sqlite3.Connection:
    """A small AutoClaw account: 2 sessions (one deleted), runs, events, entries, memory, agents."""
    db = root / "accounts" / account / "runtime" / "runtime.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db, isolation_level=None)
    con.execute(f"PRAGMA journal_mode={journal}")
    con.executescript(schema)
    con.execute("INSERT INTO schema_migrations VALUES (41, '0041_memory'), (42, '0042_participations')")
    cap = {"presetRef": "preset:dev", "label": "Developer", "agentInstructions": "Пиши тесты первыми."}
    insert(con, "work_sessions", session_id="s1", title="Deploy nginx", workspace="/ws/shop", created_at=iso(0),
           updated_at=iso(1), capability_composition_json=cap)
    insert(con, "work_sessions", session_id="s2", title="Old", workspace="/ws/private", created_at=iso(2),
           updated_at=iso(3), deleted_at=iso(4), capability_composition_json="{not json")
    insert(con, "work_runs", run_id="r1", session_id="s1", text="deploy the site", response="done", model="glm-4.6",
           status="completed", usage_json={"input_tokens": 120, "output_tokens": 45}, started_at=iso(1),
           finished_at=iso(2))
    insert(con, "work_runs", run_id="r2", session_id="s2", text="secret stuff", response=None, model="glm-4.6",
           status="running", usage_json=None, started_at=iso(3), finished_at=None)
    insert(con, "work_events", event_id="e1", session_id="s1", run_id="r1", type="tool_activity.completed",
           payload={"toolName": "bash", "isError": False}, created_at=iso(1.1))
    insert(con, "work_events", event_id="e2", session_id="s1", run_id="r1", type="run.failed", payload={},
           created_at=iso(1.2))
    insert(con, "work_events", event_id="e3", session_id="s2", run_id="r2", type="tool_activity.started",
           payload="{broken", created_at=iso(3.1))
    entries = [
        ("n1", 1, "request", {"data": {"text": "Разверни сайт на новом сервере, пожалуйста"}}),
        ("n2", 2, "assistant", {"data": {"content": [{"type": "reasoning", "text": "think"},
                                                     {"type": "text", "text": "Deploying"},
                                                     {"type": "text", "text": "now"}],
                                         "model": {"model": "glm-4.6"}}}),
        ("n3", 3, "tool_call", {"data": {"toolCallId": "c1", "name": "bash", "input": {"command": "ls"},
                                         "status": "ok"}}),
        ("n4", 4, "answer", {"data": {"text": "  Deploying\r\nnow "}}),
        ("n5", 5, "tool_result", {"data": {"toolCallId": "c1", "name": "bash", "error": {"code": 1}}}),
    ]
    for eid, seq, etype, payload in entries:
        insert(con, "neutral_session_entries", session_id="s1", entry_id=eid, session_seq=seq, run_id="r1",
               entry_type=etype, payload=payload, committed_at=iso(1 + seq / 100))
    insert(con, "neutral_session_entries", session_id="s2", entry_id="n9", session_seq=1, run_id="r2",
           entry_type="request", payload={"data": {"text": "private"}}, committed_at=iso(3.2))
    insert(con, "memory_assets", memory_id="m1", scope="workspace", workspace="/ws/shop", lifecycle="active",
           title="nginx", content="use reload not restart", source_session_id="s1", source_entry_id="n4",
           supporting_quote="reload", content_hash="h1", created_at=iso(2), updated_at=iso(2))
    insert(con, "agents", agent_id="a1", name="Ops SRE", description="ops", instructions="runbooks",
           model="glm-4.6", created_at=iso(0), updated_at=iso(0))
    insert(con, "agents", agent_id="a2", name="QA Runner", description="qa", instructions="tests",
           model="glm-4.6", created_at=iso(0), updated_at=iso(0))
    insert(con, "agent_memory_snapshots", snapshot_id="sn1", agent_id="a1", content="knows nginx",
           created_at=iso(2))
    insert(con, "collaboration_run_agent_participations", participation_id="p1", run_id="r1", agent_id="a1",
           name="Ops SRE", assignment="deploy", created_at=iso(1))
    insert(con, "collaboration_run_agent_participations", participation_id="p2", run_id="r1", agent_id="a2",
           name="QA Runner", assignment="test", created_at=iso(1))
    insert(con, "collaboration_run_agent_attempts", attempt_id="t1", participation_id="p1", agent_id="a1",
           status="completed", started_at=iso(1), finished_at=iso(2))
    insert(con, "collaboration_run_agent_attempts", attempt_id="t2", participation_id="p2", agent_id="a2",
           status="failed", error="boom", started_at=iso(1), finished_at=iso(2))
    return con


class Run:
    """One extract pass over a warehouse home, the way run_extract drives it."""

    def __init__(self, home: Path, root: Path, settings: Settings | None = None) -> None:
        paths = Paths.resolve(dsh_home=home / "dsh", autoclaw_root=root, home=home / "akw")
        paths.ensure()
        self.lake = Lake(paths.lake)
        self.store = SourceStore(paths.state_dir, "autoclaw")
        self.ctx = ExtractContext(paths=paths, settings=settings or Settings(), lake=self.lake, store=self.store)
        self.report: SourceReport = autoclaw.extract(self.ctx)
        self.store.save()

    def table(self, name: str) -> pl.DataFrame:
        return pl.read_parquet(self.lake.glob("autoclaw", name))

    def latest(self, name: str, *key: str) -> pl.DataFrame:
        """What the models see: the newest version of each primary key."""
        return self.table(name).sort("extracted_seq").unique(list(key), keep="last").sort(list(key))

    def parts(self, name: str) -> list[str]:
        return sorted(self.lake.unit_keys("autoclaw", name))

    def unit(self, unit: str) -> dict[str, Any]:
        return self.store.units[unit]

    def codes(self) -> dict[str, str]:
        return {e["unit"]: e["code"] for e in self.report.errors}


@pytest.fixture(autouse=True)
def fast_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(autoclaw, "POLICY", FAST)


def files(db: Path) -> dict[str, tuple[str, int]]:
    """sha256 and mtime of the database and each side file that exists."""
    out = {}
    for suffix in ("", "-wal", "-shm", "-journal"):
        p = Path(f"{db}{suffix}")
        if p.exists():
            out[suffix] = (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
    return out


def db_path(root: Path, account: str = "acc1") -> Path:
    return root / "accounts" / account / "runtime" / "runtime.sqlite"


# -- tests ----------------------------------------------------------------------------------
def test_normal_extract_shapes_every_table(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)
    con.execute("UPDATE memory_assets SET title = CAST(x'6e67ff696e78' AS TEXT)")  # invalid UTF-8 byte
    con.close()
    r = Run(tmp_path, root)
    assert r.report.errors == [] and not r.report.degraded
    assert r.table("ac_memories")["title"].to_list() == ["ng\ufffdinx"]
    assert r.report.rows == {"ac_accounts": 1, "ac_agent_snapshots": 1, "ac_agents": 2, "ac_attempts": 2,
                             "ac_entries": 6, "ac_events": 3, "ac_memories": 1, "ac_participations": 2,
                             "ac_runs": 2, "ac_sessions": 2}
    sessions = r.table("ac_sessions").sort("session_id")
    s1, s2 = sessions.row(0, named=True), sessions.row(1, named=True)
    assert (s1["preset_ref"], s1["preset_label"], s1["agent_instructions"]) == \
        ("preset:dev", "Developer", "Пиши тесты первыми.")
    assert s1["account"] == "acc1" and s1["deleted_at"] is None
    assert s1["created_at"] == BASE and sessions.schema["created_at"] == pl.Datetime("ms", "UTC")
    assert s2["deleted_at"] == BASE + timedelta(minutes=4)  # deleted sessions are kept; models filter
    assert s2["preset_ref"] is None and s2["capability_json"] == "{not json"
    runs = r.table("ac_runs").sort("run_id")
    assert runs["input_tokens"].to_list() == [120, None] and runs["output_tokens"].to_list() == [45, None]
    ev = r.table("ac_events").sort("event_id")
    assert ev["tool_name"].to_list() == ["bash", None, None]
    assert ev["is_error"].to_list() == [False, True, False]
    assert ev["payload"][2] == "{broken"
    en = {row["entry_id"]: row for row in r.table("ac_entries").iter_rows(named=True)}
    assert en["n2"]["text"] == "Deploying\nnow" and en["n2"]["model"] == "glm-4.6"
    assert en["n1"]["language"] == "ru" and en["n2"]["language"] == "en" and en["n3"]["language"] is None
    assert en["n2"]["text_hash"] == en["n4"]["text_hash"] != en["n1"]["text_hash"]  # answer repeats assistant
    assert (en["n3"]["tool_call_id"], en["n3"]["tool_name"], en["n3"]["tool_status"]) == ("c1", "bash", "ok")
    assert json.loads(en["n3"]["tool_input"]) == {"command": "ls"}
    assert json.loads(en["n5"]["tool_error"]) == {"code": 1}
    assert en["n1"]["payload_bytes"] == len(json.dumps(
        {"data": {"text": "Разверни сайт на новом сервере, пожалуйста"}}, ensure_ascii=False).encode())
    assert en["n1"]["session_seq"] == 1
    acc = r.table("ac_accounts").row(0, named=True)
    db = db_path(root)
    assert acc["db_sha256"] == hashlib.sha256(db.read_bytes()).hexdigest()
    assert (acc["schema_version"], acc["schema_migration_name"], acc["journal_mode"]) == \
        ("42", "0042_participations", "wal")
    assert acc["db_rel_path"] == "accounts/acc1/runtime/runtime.sqlite" and "agents" in acc["tables_present"]
    assert r.unit("acc1:work_events")["schema_version"] == "42" and r.unit("acc1:work_events")["status"] == "ok"
    assert r.report.units_seen == 1 + len(TABLE_UNITS) == r.report.units_changed


def test_no_change_writes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    make_db(root).close()
    Run(tmp_path, root)
    state = (tmp_path / "akw" / "state" / "autoclaw.json").read_bytes()
    again = Run(tmp_path, root)
    assert again.lake.files_written == 0 and again.report.rows == {}
    assert again.report.units_unchanged == 1 + len(TABLE_UNITS)
    assert (tmp_path / "akw" / "state" / "autoclaw.json").read_bytes() == state


def test_incremental_append_writes_only_new_rows(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)
    sessions_before = Run(tmp_path, root).parts("ac_sessions")
    insert(con, "work_events", event_id="e4", session_id="s1", run_id="r1", type="run.completed", payload={},
           created_at=iso(10))
    insert(con, "neutral_session_entries", session_id="s1", entry_id="n6", session_seq=6, run_id="r1",
           entry_type="request", payload={"data": {"text": "next"}}, committed_at=iso(10))
    nxt = Run(tmp_path, root)
    assert nxt.report.rows.get("ac_events") == 1 and nxt.report.rows.get("ac_entries") == 1
    assert set(nxt.report.rows) <= {"ac_events", "ac_entries", "ac_accounts"}  # nothing else re-written
    assert len(nxt.parts("ac_events")) == 2 and nxt.parts("ac_sessions") == sessions_before
    new = nxt.table("ac_events").filter(pl.col("event_id") == "e4")
    assert new["extracted_seq"][0] > nxt.table("ac_events").filter(pl.col("event_id") == "e1")["extracted_seq"][0]
    assert nxt.latest("ac_entries", "session_id", "entry_id").height == 7
    con.close()


def test_rows_sharing_the_old_max_timestamp_are_not_missed(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)  # entries are WITHOUT ROWID: only committed_at marks progress
    Run(tmp_path, root)
    insert(con, "neutral_session_entries", session_id="s1", entry_id="n8", session_seq=8, run_id="r1",
           entry_type="request", payload={"data": {"text": "same ms"}}, committed_at=iso(3.2))  # == old max
    r = Run(tmp_path, root)
    assert "n8" in r.latest("ac_entries", "session_id", "entry_id")["entry_id"].to_list()
    assert r.report.rows["ac_entries"] == 7 and len(r.parts("ac_entries")) == 1  # fell back to a rewrite
    con.close()


def test_updated_rows_are_reread_and_win(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)
    Run(tmp_path, root)
    con.execute("UPDATE work_sessions SET title = 'Deploy nginx v2', updated_at = ? WHERE session_id = 's1'",
                (iso(20),))
    con.execute("UPDATE work_runs SET status = 'completed', finished_at = ? WHERE run_id = 'r2'", (iso(21),))
    con.execute("UPDATE collaboration_run_agent_participations SET outcome = 'shipped' WHERE participation_id='p1'")
    r = Run(tmp_path, root)
    assert r.report.rows["ac_sessions"] == 1  # only the updated session, not the whole table
    assert r.latest("ac_sessions", "session_id")["title"].to_list() == ["Deploy nginx v2", "Old"]
    runs = r.latest("ac_runs", "run_id")
    assert runs["status"].to_list() == ["completed", "completed"] and runs["finished_at"][1] is not None
    assert r.latest("ac_participations", "participation_id")["outcome"].to_list() == ["shipped", None]
    con.close()


def test_deleted_rows_rewrite_the_table_from_scratch(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)
    insert(con, "work_events", event_id="e0", session_id="s1", run_id="r1", type="x", payload={},
           created_at=iso(0.5))
    before = Run(tmp_path, root).parts("ac_events")
    con.execute("DELETE FROM work_events WHERE event_id IN ('e0', 'e1')")
    r = Run(tmp_path, root)
    assert len(r.parts("ac_events")) == 1 and r.parts("ac_events") != before
    assert sorted(r.table("ac_events")["event_id"]) == ["e2", "e3"]
    con.close()


def test_lost_lake_parts_are_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    make_db(root).close()
    first = Run(tmp_path, root)
    for f in first.lake.table_dir("autoclaw", "ac_runs").glob("acc1-*.parquet"):
        f.unlink()
    r = Run(tmp_path, root)
    assert r.report.rows == {"ac_runs": 2} and r.table("ac_runs").height == 2


def test_schema_drift_indexes_what_is_readable(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    drifted = SCHEMA.replace("usage_json TEXT, started_at", "started_at").replace(
        "CREATE TABLE agents(", "CREATE TABLE agents_v2(")
    db_path(root).parent.mkdir(parents=True)
    con = sqlite3.connect(db_path(root), isolation_level=None)
    con.execute("PRAGMA journal_mode=wal")
    con.executescript(drifted)
    insert(con, "work_sessions", session_id="s1", workspace="/ws", created_at=iso(0), updated_at=iso(0))
    insert(con, "work_runs", run_id="r1", session_id="s1", status="completed", started_at=iso(0))
    con.close()
    r = Run(tmp_path, root)
    codes = r.codes()
    assert codes == {"acc1:work_runs": Code.SOURCE_SCHEMA_UNSUPPORTED.value,
                     "acc1:agents": Code.SOURCE_SCHEMA_UNSUPPORTED.value}
    assert "usage_json" in r.unit("acc1:work_runs")["error"] and r.report.degraded
    assert r.table("ac_sessions").height == 1 and r.table("ac_runs").height == 0
    assert r.unit("acc1:work_sessions")["status"] == "ok" and r.unit("acc1")["status"] == "ok"
    assert r.table("ac_accounts")["schema_version"].to_list() == [None]  # no schema_migrations rows


def _hold_lock(db: Path, wal: bool) -> subprocess.Popen[str]:
    """Another process holding BEGIN EXCLUSIVE (in WAL mode with exclusive locking, the only way to block readers)."""
    pragma = "c.execute('PRAGMA locking_mode=EXCLUSIVE'); " if wal else ""
    code = (f"import sqlite3, time; c = sqlite3.connect({str(db)!r}, isolation_level=None); {pragma}"
            "c.execute('BEGIN EXCLUSIVE'); c.execute(\"UPDATE agents SET name = name || '!'\"); "
            "print('locked', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_locked_database_is_retried_then_reported(tmp_path: Path, journal: str) -> None:
    root = tmp_path / "ac"
    make_db(root, journal=journal).close()
    make_db(root, account="acc2").close()
    proc = _hold_lock(db_path(root), wal=journal == "wal")
    try:
        t0 = time.perf_counter()
        r = Run(tmp_path, root)
        elapsed = time.perf_counter() - t0
    finally:
        proc.kill()
        proc.wait()
    assert r.codes() == {"acc1": Code.SOURCE_LOCKED.value} and r.report.degraded
    assert "3 attempts" in r.unit("acc1")["error"]
    assert elapsed < 3 and elapsed >= FAST.backoff_s * 3  # backed off twice (0.02 + 0.04), did not hang
    assert r.table("ac_sessions")["account"].unique().to_list() == ["acc2"]  # the other account is indexed
    assert Run(tmp_path, root).report.errors == []  # lock released: the next run recovers


def test_not_a_database_is_corrupt_and_isolated(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    make_db(root, account="good").close()
    bad = db_path(root, "bad")
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"this is not sqlite at all\n" * 20)
    before = files(bad)
    r = Run(tmp_path, root)
    assert r.codes() == {"bad": Code.SOURCE_CORRUPT.value}
    assert r.table("ac_runs")["account"].unique().to_list() == ["good"]
    assert files(bad) == before


def test_source_files_are_never_touched(tmp_path: Path) -> None:
    """Proof by hashes: clean WAL DB (no side files) and a live writer holding -wal/-shm open."""
    root = tmp_path / "ac"
    make_db(root).close()  # closing checkpoints and removes -wal/-shm
    db = db_path(root)
    before = files(db)
    assert set(before) == {""}
    Run(tmp_path, root)
    assert files(db) == before  # no -wal/-shm created, nothing rewritten
    live = _live_writer(db)  # the app in another process (in-process connections would share its -shm)
    try:
        os.utime(db, ns=(1_000_000_000, 1_000_000_000))  # a distinct mtime, so a rewrite could not hide
        before = files(db)
        assert {"-wal", "-shm"} <= set(before)
        r = Run(tmp_path, root)
        assert "e9" in r.table("ac_events")["event_id"].to_list()  # committed WAL frames are seen
        assert files(db) == before
    finally:
        live.kill()
        live.wait()


def _live_writer(db: Path) -> subprocess.Popen[str]:
    code = (f"import sqlite3, time; c = sqlite3.connect({str(db)!r}, isolation_level=None); "
            "c.execute('PRAGMA wal_autocheckpoint=0'); "
            "c.execute(\"INSERT INTO work_events VALUES ('e9', 's1', 'r1', 'x', '{}', '2026-09-02T00:00:00Z')\"); "
            "print('ready', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def test_exclusions_drop_rows_and_come_back(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    make_db(root).close()
    settings = Settings()
    settings.exclude.workspaces = ["/ws/private"]
    settings.exclude.actors = ["QA Runner"]
    r = Run(tmp_path, root, settings)
    assert r.table("ac_sessions")["session_id"].to_list() == ["s1"]
    assert r.table("ac_runs")["run_id"].to_list() == ["r1"]
    assert "e3" not in r.table("ac_events")["event_id"].to_list()
    assert "n9" not in r.table("ac_entries")["entry_id"].to_list()
    assert r.table("ac_agents")["agent_id"].to_list() == ["a1"]
    assert r.table("ac_participations")["participation_id"].to_list() == ["p1"]
    assert r.table("ac_attempts")["attempt_id"].to_list() == ["t1"]
    back = Run(tmp_path, root)  # exclusions removed: everything is re-extracted
    assert back.table("ac_sessions").height == 2 and back.table("ac_attempts").height == 2


def test_session_moving_into_excluded_workspace_is_purged(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    con = make_db(root)
    settings = Settings()
    settings.exclude.workspaces = ["/ws/private"]
    Run(tmp_path, root, settings)
    con.execute("UPDATE work_sessions SET workspace = '/ws/private', updated_at = ? WHERE session_id = 's1'",
                (iso(40),))
    r = Run(tmp_path, root, settings)
    assert r.table("ac_sessions").height == 0 and r.table("ac_entries").height == 0
    assert r.table("ac_memories").height == 0  # its memory was learnt in that session
    assert r.table("ac_agents").height == 2 and r.table("ac_participations").height == 0  # r1 belongs to s1
    con.close()


def test_vanished_account_and_missing_root(tmp_path: Path) -> None:
    root = tmp_path / "ac"
    make_db(root).close()
    Run(tmp_path, root)
    db_path(root).unlink()
    r = Run(tmp_path, root)
    assert r.report.units_removed == 1 + len(TABLE_UNITS) and r.store.units == {}
    assert r.table("ac_sessions").height == 0 and r.table("ac_accounts").height == 0
    none = Run(tmp_path / "other", tmp_path / "nowhere")
    assert none.report.to_dict()["units"]["seen"] == 0 and not none.report.degraded and none.report.errors == []
    assert none.store.units == {} and none.store.cursors == {}


@pytest.mark.parametrize(("raw", "expected"), [
    ("2026-09-01T00:00:00Z", 1_788_220_800_000), ("2026-09-01T00:00:00.250Z", 1_788_220_800_250),
    ("2026-09-01T03:00:00+03:00", 1_788_220_800_000), ("2026-09-01 00:00:00", 1_788_220_800_000),
    (1_788_220_800_000, 1_788_220_800_000), (1_788_220_800, 1_788_220_800_000), ("1788220800000", 1_788_220_800_000),
    ("yesterday", None), (None, None), (True, None), (10**19, None),
])
def test_timestamps_parse_or_null(raw: Any, expected: int | None) -> None:
    assert to_ms(raw) == expected


def _duplicates(entries: pl.DataFrame) -> tuple[int, int]:
    """SOURCES.md §2 duplicate rules evaluated on text_hash alone (what the models will do in SQL)."""
    dups = answers = 0
    for _, grp in entries.sort("session_id", "session_seq").group_by("account", "session_id", maintain_order=True):
        last_request = last_assistant = None
        answered = False
        for etype, h in grp.select("entry_type", "text_hash").iter_rows():
            if etype == "request":
                if h == last_request and not answered:
                    dups += 1
                else:
                    last_request, answered = h, False
            elif etype == "answer":
                answered = True
                answers += h == last_assistant
            elif etype == "assistant":
                last_assistant = h
    return dups, answers


def test_generated_fixture_reconciles_with_manifest(tmp_path: Path) -> None:
    akw_fixtures = pytest.importorskip("akw_fixtures")
    manifest = akw_fixtures.generate(tmp_path / "fx", sessions=8, seed=7)
    counts, root = manifest["counts"], tmp_path / "fx" / "autoclaw"
    dbs = sorted(root.glob("accounts/*/runtime/runtime.sqlite"))
    before = {db: files(db) for db in dbs}
    assert any("-wal" in f for f in before.values())  # one account keeps its newest rows in the WAL
    r = Run(tmp_path, root)
    assert r.report.errors == []
    expect = {"ac_accounts": "autoclaw_accounts", "ac_sessions": "autoclaw_sessions", "ac_runs": "autoclaw_runs",
              "ac_entries": "autoclaw_entries", "ac_events": "autoclaw_events", "ac_memories": "autoclaw_memories",
              "ac_agents": "autoclaw_agents", "ac_participations": "autoclaw_participations",
              "ac_attempts": "autoclaw_attempts"}
    assert {t: r.table(t).height for t in expect} == {t: counts[k] for t, k in expect.items()}
    assert r.table("ac_sessions")["deleted_at"].is_not_null().sum() == counts["autoclaw_sessions_deleted"]
    assert _duplicates(r.table("ac_entries")) == (counts["autoclaw_duplicate_requests"],
                                                  counts["autoclaw_answer_duplicates"])
    assert {db: files(db) for db in dbs} == before
    assert Run(tmp_path, root).lake.files_written == 0
