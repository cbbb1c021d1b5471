"""Reindex modes and status: no-op, one changed unit, full, verify, status states, run log,
privacy canaries and read-only sources.

The generated sources are never edited: tests that change a source work on a copy, tests
that damage a warehouse work on a copy of the built home.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import akw_fixtures
import pytest
import zstandard

from warehouse.api import Warehouse
from warehouse.core import db
from warehouse.core.errors import KnowledgeError
from warehouse.core.settings import Settings
from warehouse.home import generation
from warehouse.home.runs import read_runs
from warehouse.home.status import status
from warehouse.indexing import spawn

SESSIONS, SEED = 24, 5
MARKER = "zebra-quokka appended marker"


def snapshot(root: Path) -> dict[str, tuple[int, int, str]]:
    """path -> (size, mtime_ns, sha256) of every file under root (symlinks by their own stat)."""
    out = {}
    for p in sorted(root.rglob("*")):
        st = os.lstat(p)
        if p.is_symlink():
            out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns, os.readlink(p))
        elif p.is_file():
            out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns,
                                                   hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def source_units(report: dict[str, Any]) -> dict[str, dict[str, int]]:
    return {s["source"]: s["units"] for s in report["extract"]["sources"]}


def query(wh: Warehouse, sql: str) -> list[tuple[Any, ...]]:
    con, _ = generation.open_current(wh.paths.generations)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def copy_sources(src: Path, dst: Path) -> Path:
    """dsh/ and autoclaw/ copied with their mtimes (workspaces stay shared: the registry points at them)."""
    for name in ("dsh", "autoclaw"):
        shutil.copytree(src / name, dst / name, symlinks=True)
    return dst


def append_event(path: Path, text: str) -> None:
    """Append one assistant message as a new zstd frame, the way a live session grows."""
    raw = path.read_bytes()
    body = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(raw), read_across_frames=True).read()
    last = json.loads(body.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    ev = {"type": "assistant/message", "seq": last["seq"] + 1, "time": last["time"] + 1000,
          "data": {"turn": 9999, "step": 0, "model": "test-model", "finishReason": "stop",
                   "usage": {"input_tokens": 10, "output_tokens": 5},
                   "message": {"content": [{"type": "text", "text": text}]}}}
    with open(path, "ab") as fh:
        fh.write(zstandard.ZstdCompressor().compress((json.dumps(ev) + "\n").encode()))


def complete_sessions(dsh_home: Path) -> list[Path]:
    """Session files whose last line is complete (appending after a torn tail would glue lines)."""
    out = []
    for p in sorted(dsh_home.glob("sessions/*/*/session.v4.jsonl.zstd")):
        body = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(p.read_bytes()), read_across_frames=True).read()
        if body.endswith(b"\n"):
            out.append(p)
    return out


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("reindex")
    return out, akw_fixtures.generate(out, sessions=SESSIONS, seed=SEED)


@pytest.fixture(scope="module")
def built(src: tuple[Path, dict[str, Any]]) -> dict[str, Any]:
    """A first build on the original sources, with the sources' snapshot before and after."""
    out = src[0]
    before = {name: snapshot(out / name) for name in ("dsh", "autoclaw")}
    wh = Warehouse.open(out / "dsh", out / "autoclaw", out / "akw")
    report = wh.reindex(mode="incremental")
    after = {name: snapshot(out / name) for name in ("dsh", "autoclaw")}
    assert report["outcome"] == "published"
    return {"wh": wh, "report": report, "before": before, "after": after}


def home_copy(built: dict[str, Any], src: tuple[Path, dict[str, Any]], dst: Path) -> Warehouse:
    shutil.copytree(built["wh"].paths.home, dst)
    return Warehouse.open(src[0] / "dsh", src[0] / "autoclaw", dst)


# -- sources are read-only ------------------------------------------------------------
def test_reindex_leaves_sources_untouched(built) -> None:
    for name in ("dsh", "autoclaw"):
        assert built["before"][name], name
        assert built["after"][name] == built["before"][name], f"{name}: a file changed, appeared or vanished"


# -- incremental no-op ------------------------------------------------------------------
def test_noop_keeps_rev_and_writes_nothing(built) -> None:
    wh: Warehouse = built["wh"]
    home = wh.paths.home
    lake, gens = snapshot(wh.paths.lake), snapshot(wh.paths.generations)
    states = {p.name: p.read_bytes() for p in wh.paths.state_dir.glob("*.json")}
    report = wh.reindex(mode="incremental")
    assert report["outcome"] == "noop"
    assert report["index_rev"] == built["report"]["index_rev"]
    assert report["generation"] == built["report"]["generation"]
    assert report["extract"]["files_written"] == 0
    assert all(u["changed"] == 0 and u["unchanged"] == u["seen"] for u in source_units(report).values())
    assert snapshot(wh.paths.lake) == lake
    assert snapshot(wh.paths.generations) == gens
    assert {p.name: p.read_bytes() for p in wh.paths.state_dir.glob("*.json")} == states
    assert read_runs(wh.paths)[-1]["outcome"] == "noop"
    assert home.exists()


# -- run log, full mode ---------------------------------------------------------------
def test_full_rebuild_same_rev_and_run_log(built, src, tmp_path) -> None:
    wh = home_copy(built, src, tmp_path / "akw")
    assert wh.reindex()["outcome"] == "noop"
    assert wh.reindex()["outcome"] == "noop"
    runs_before = read_runs(wh.paths)
    report = wh.reindex(mode="full")
    assert report["outcome"] == "published"
    assert report["index_rev"] == built["report"]["index_rev"]  # from scratch == incremental, same input
    assert report["extract"]["files_written"] > 0  # really re-extracted
    assert all(u["changed"] == u["seen"] for u in source_units(report).values())
    runs = query(wh, "SELECT run_id, mode, outcome, index_rev FROM ak_index_run ORDER BY started_at, run_id")
    assert [r[0] for r in runs] == [r["run_id"] for r in runs_before] + [report["run_id"]]
    assert len({r[0] for r in runs}) == len(runs)
    assert [r[2] for r in runs][-3:] == ["noop", "noop", "building"]
    assert "published" in [r[2] for r in runs] and "full" in [r[1] for r in runs]
    assert read_runs(wh.paths)[-1]["run_id"] == report["run_id"]


# A Ctrl-C that lands inside a DuckDB query of one session's extract: DuckDB raises it as
# RuntimeError('Query interrupted'), which the per-session isolation caught as that session's error,
# and the run went on to publish (a cancelled MCP reindex published, issue 23's CI). The child process
# runs the real reindex; the only thing injected is where the signal lands: a session's extract
# that spends its time in a DuckDB query while another thread sends SIGINT.
_CTRL_C_IN_A_QUERY = """
import os, signal, sys, threading
import duckdb
import warehouse.extract.dsh.job as job
from warehouse.api import Warehouse

real, first = job._sync_session, []

def a_session_in_a_long_query(*args, **kwargs):
    if first:
        return real(*args, **kwargs)
    first.append(1)
    stop = threading.Event()

    def ctrl_c():  # again until the query ends: one that lands before DuckDB polls waits for the query's end
        while not stop.wait(0.3):
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=ctrl_c, daemon=True).start()
    con = duckdb.connect()
    try:
        con.execute("SELECT count(*) FROM range(3000000000) a, range(100) b").fetchall()
    except RuntimeError:
        print("interrupted inside the query", file=sys.stderr)
        raise
    finally:
        stop.set()
        con.interrupt()  # the query's worker tasks end now, not when the closing connection would wait them out
        con.close()

job._sync_session = a_session_in_a_long_query
wh = Warehouse.open(*sys.argv[1:4])
try:
    wh.reindex(mode="full")
except KeyboardInterrupt:
    sys.exit(130)
print("the run went on after the Ctrl-C")
"""


def test_a_ctrl_c_inside_a_duckdb_query_cancels_the_run_instead_of_failing_one_session(built, src, tmp_path) -> None:
    wh = home_copy(built, src, tmp_path / "akw")
    before = generation.current(wh.paths.generations)
    runs_before = read_runs(wh.paths)
    p = subprocess.run([sys.executable, "-c", _CTRL_C_IN_A_QUERY, str(src[0] / "dsh"), str(src[0] / "autoclaw"),
                        str(wh.paths.home)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 130, p.stdout + p.stderr[-2000:]
    assert "interrupted inside the query" in p.stderr  # the path under test: DuckDB's RuntimeError, not Python's
    after = generation.current(wh.paths.generations)
    assert after is not None and before is not None and after.path == before.path
    assert read_runs(wh.paths) == runs_before  # cut in extract: nothing recorded as published or failed
    with generation.writer_lock(wh.paths):  # the lock was released
        pass
    again = wh.reindex()  # the next run reads again what the cut full run forgot: the same lake, the same rev
    assert again["outcome"] == "noop" and again["index_rev"] == before.index_rev


def test_a_build_that_outgrows_its_memory_limit_is_retried_once_with_more(src, tmp_path) -> None:
    """DuckDB operators need tens of MB whatever the data (ak_document fails at 32 MB on this
    small input): the build retries once with 4x the limit and says so (KNOWLEDGE_LIMIT)."""
    wh = Warehouse.open(src[0] / "dsh", src[0] / "autoclaw", tmp_path / "akw")
    small = Settings.model_validate({"index": {"memory_limit": "32MB"}})
    report = Warehouse(wh.paths, small).reindex()
    assert report["outcome"] == "published"
    [warning] = report["warnings"]
    assert warning["code"] == "KNOWLEDGE_LIMIT" and "built with 128MB" in warning["message"]
    assert read_runs(wh.paths)[-1]["warnings"] == [warning]
    tiny = Settings.model_validate({"index": {"memory_limit": "4MB"}})  # 16 MB is not enough either
    with pytest.raises(KnowledgeError) as e:
        Warehouse(wh.paths, tiny).reindex(mode="full")
    assert "OutOfMemory" in e.value.message and "index.memory_limit" in e.value.message
    assert "model " in e.value.message  # the failing step is named


def test_a_build_child_that_makes_no_progress_is_stopped_and_one_that_works_is_left_alone() -> None:
    """A child that uses no CPU and does no IO (as DuckDB 1.4.4's deadlocked builds did, for good) is killed
    after the stall time; one that keeps a core busy for longer than that is not."""
    def child(code: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    stuck, t = child("import time; print('started', flush=True); time.sleep(300)"), time.monotonic()
    with pytest.raises(spawn.StalledBuild, match="no progress for 1 s"):
        spawn.wait_while_progressing(stuck, stall_s=1.0)
    assert stuck.poll() is not None and time.monotonic() - t < 30
    busy = child("import time\nend = time.monotonic() + 2\nwhile time.monotonic() < end: pass\nprint('done')")
    done = spawn.wait_while_progressing(busy, stall_s=1.0)
    assert (done.returncode, done.stdout.strip()) == (0, "done")


def test_a_stuck_build_fails_the_run_with_a_coded_error_and_keeps_the_published_generation(
        built, src, tmp_path, monkeypatch) -> None:
    """The run does not hang with the home's lock held: it fails, says why, and the next run builds."""
    wh = home_copy(built, src, tmp_path / "akw")
    before = generation.current(wh.paths.generations)
    monkeypatch.setattr(spawn, "STALL_S", 1.0)
    monkeypatch.setattr(spawn, "_CHILD", "import time; time.sleep(300)")  # a build child that never moves
    with pytest.raises(KnowledgeError) as e:
        wh.reindex(mode="full")
    assert e.value.code == "KNOWLEDGE_INTERNAL" and "made no progress" in e.value.message
    assert generation.current(wh.paths.generations).path == before.path
    monkeypatch.undo()
    assert wh.reindex()["outcome"] in ("noop", "published")  # the lock was let go (same input: nothing to build)


# -- verify -----------------------------------------------------------------------------------
def test_verify_ok_then_reports_a_deleted_lake_file(built, src, tmp_path) -> None:
    wh = home_copy(built, src, tmp_path / "akw")
    ok = wh.reindex(mode="verify")
    assert ok["ok"] and ok["mismatches"] == [] and ok["index_rev"] == built["report"]["index_rev"]
    victim = sorted(p for p in (wh.paths.lake / "bronze" / "dsh" / "sessions").glob("*.parquet")
                    if not p.name.startswith("_"))[0]
    victim.unlink()
    before = snapshot(wh.paths.home)
    bad = wh.reindex(mode="verify")
    assert snapshot(wh.paths.home) == before  # verify changes nothing
    assert not bad["ok"]
    assert any(m["check"] == "stg_dsh_sessions" for m in bad["mismatches"]), bad["mismatches"]


# -- one changed unit, an unpublished change -----------------------------------------------
def test_changed_session_reextracts_one_unit(src, tmp_path) -> None:
    copy = copy_sources(src[0], tmp_path / "src")
    wh = Warehouse.open(copy / "dsh", copy / "autoclaw", tmp_path / "akw")
    first = wh.reindex()
    events0 = query(wh, "SELECT count(*) FROM ak_event WHERE source = 'harness'")[0][0]
    sessions = complete_sessions(copy / "dsh")
    assert len(sessions) >= 2

    append_event(sessions[0], f"{MARKER} one")
    second = wh.reindex()
    units = source_units(second)
    assert units["dsh"]["changed"] == 1 and units["dsh"]["unchanged"] == units["dsh"]["seen"] - 1
    assert all(units[s]["changed"] == 0 for s in ("autoclaw", "skills", "code"))
    assert second["outcome"] == "published" and second["index_rev"] != first["index_rev"]
    assert query(wh, "SELECT count(*) FROM ak_event WHERE source = 'harness'")[0][0] == events0 + 1
    found = query(wh, f"SELECT kind FROM ak_document WHERE text LIKE '%{MARKER} one%' ORDER BY kind")
    assert found == [("assistant",), ("episode",)]  # the message, and the episode's final answer

    append_event(sessions[1], f"{MARKER} two")  # extracted but not yet published
    extracted = wh.extract()
    assert {s["source"]: s["units"]["changed"] for s in extracted["sources"]}["dsh"] == 1
    before = snapshot(wh.paths.home)
    verify = wh.reindex(mode="verify")
    assert snapshot(wh.paths.home) == before
    assert not verify["ok"] and [m["check"] for m in verify["mismatches"]] == ["index_rev"]
    third = wh.reindex()
    assert third["outcome"] == "published" and third["index_rev"] not in (first["index_rev"], second["index_rev"])
    assert wh.reindex(mode="verify")["ok"]


def test_incremental_build_equals_a_full_build_of_the_same_input(src, tmp_path) -> None:
    """A rerun reuses the previous generation's tokenized texts; the index must be what a full
    build of the same sources on a fresh home gives: same rev, same tables, same search results."""
    from warehouse.search.lexical import lexical_search

    copy = copy_sources(src[0], tmp_path / "src")
    inc = Warehouse.open(copy / "dsh", copy / "autoclaw", tmp_path / "inc")
    inc.reindex()
    sessions = complete_sessions(copy / "dsh")
    append_event(sessions[0], f"{MARKER} incremental nginx 10.1.2.3")
    append_event(sessions[-1], "второе изменение: миграция сайта завершена")
    rec = inc.reindex()
    texts = rec["build"]["lexical"]["texts"]
    assert texts["reused_from_previous"] and texts["tokenized"] < texts["distinct"] / 10
    full = Warehouse.open(copy / "dsh", copy / "autoclaw", tmp_path / "full")
    rec_full = full.reindex(mode="full")
    assert not rec_full["build"]["lexical"]["texts"]["reused_from_previous"]
    assert rec["index_rev"] == rec_full["index_rev"]
    for sql in ("SELECT * FROM fts_vocab ORDER BY term", "SELECT * FROM fts_postings ORDER BY lane, term_id, doc_id",
                "SELECT * FROM fts_lane_stats ORDER BY lane", "SELECT * FROM fts_lane_terms ORDER BY lane, term_id",
                "SELECT * FROM fts_text_terms ORDER BY text_id, term_id", "SELECT * FROM fts_doc_sig ORDER BY doc_id",
                "SELECT doc_id, doc_key, title, text FROM ak_document ORDER BY doc_id"):
        assert query(inc, sql) == query(full, sql), sql
    for wh in (inc, full):
        con, _ = generation.open_current(wh.paths.generations)
        try:
            got = [lexical_search(con, "episodes", q, k=20) for q in (MARKER, "10.1.2.3", "миграция сайта", "nginx")]
        finally:
            con.close()
        assert got[0] and got[1]
        wh.results = got  # type: ignore[attr-defined]
    assert inc.results == full.results  # type: ignore[attr-defined]
    answers = []
    for wh in (inc, full):
        resp = wh.search({"schema": "knowledge.search/v1", "query": "nginx 10.1.2.3 миграция", "limit": 10})
        for lane in resp["lanes"].values():
            lane.pop("observed_at", None)  # when each generation was built: the only difference allowed
        answers.append(resp)
    assert answers[0]["found"] and answers[0] == answers[1]


# -- status states ----------------------------------------------------------------------------
def test_status_not_ready_before_first_build(src, tmp_path) -> None:
    wh = Warehouse.open(src[0] / "dsh", src[0] / "autoclaw", tmp_path / "akw")
    st = wh.status()
    assert st["state"] == "not_ready" and st["index_rev"] is None
    with pytest.raises(KnowledgeError) as e:
        wh.sql("SELECT 1")
    assert e.value.code == "KNOWLEDGE_NOT_READY"


def test_status_ready_stale_disabled(built) -> None:
    wh: Warehouse = built["wh"]
    now = datetime.now(UTC)
    st = status(wh.paths, wh.settings, now=now)
    assert st["state"] == "ready" and st["index_rev"] == built["report"]["index_rev"]
    assert st["coverage"] and all(c["ok"] for c in st["coverage"])
    hours = wh.settings.schedule.stale_after_hours
    assert status(wh.paths, wh.settings, now=now + timedelta(hours=hours + 1))["state"] == "stale"
    off = Warehouse(wh.paths, Settings(enabled=False))
    assert off.status()["state"] == "disabled"
    with pytest.raises(KnowledgeError) as e:
        off.reindex()
    assert e.value.code == "KNOWLEDGE_DISABLED"


def test_status_degraded_by_a_corrupt_session(src, tmp_path) -> None:
    copy = copy_sources(src[0], tmp_path / "src")
    ws = sorted((copy / "dsh" / "sessions").iterdir())[0]
    sid = "session-00c0ffee00c0ffee"
    bad = ws / sid / "session.v4.jsonl.zstd"
    bad.parent.mkdir()
    rng = random.Random(SEED)
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(rng.getrandbits(8) for _ in range(512)))
    wh = Warehouse.open(copy / "dsh", copy / "autoclaw", tmp_path / "akw")
    report = wh.reindex()
    assert report["outcome"] == "published"
    st = wh.status()
    assert st["state"] == "degraded"
    assert [(e["unit"], e["code"]) for e in st["errors"]] == [(f"session:{sid}", "KNOWLEDGE_SOURCE_CORRUPT")]
    assert st["degradations"] == [{"source": "dsh", "units_failed": 1, "codes": ["KNOWLEDGE_SOURCE_CORRUPT"]}]
    assert all(c["ok"] for c in st["coverage"])  # what was readable is fully indexed
    n = query(wh, "SELECT count(DISTINCT session_id) FROM ak_event WHERE source = 'harness'")[0][0]
    assert n == src[1]["counts"]["dsh_session_files"]  # the other sessions are all there


# -- privacy ---------------------------------------------------------------------------------
def _needles(manifest: dict[str, Any]) -> list[str]:
    """Canary values; for e-mails the local part (the domain is kept on purpose by redaction)."""
    out = {c["value"].split("@", 1)[0] if c["kind"] == "email" else c["value"] for c in manifest["canaries"]}
    assert len(out) >= 10
    return sorted(out)


def _decoded_text(path: Path) -> str:
    """All cell values of a Parquet or DuckDB file as text (their bytes on disk are compressed)."""
    con = db.connect(extensions=())
    try:
        if path.suffix == ".parquet":
            tables = [f"read_parquet('{path.as_posix()}')"]
        else:
            con.execute(f"ATTACH '{path.as_posix()}' AS g (READ_ONLY)")
            tables = [f'g."{t}"' for (t,) in con.execute("SELECT table_name FROM duckdb_tables() "
                                                         "WHERE database_name = 'g'").fetchall()]
        parts = []
        for t in tables:
            for row in con.execute(f"SELECT CAST(COLUMNS(*) AS VARCHAR) FROM {t}").fetchall():
                parts.extend(v for v in row if v)
        return "\n".join(parts)
    finally:
        con.close()


def test_no_canary_reaches_any_file_of_the_warehouse(src, built) -> None:
    needles = _needles(src[1])
    home = built["wh"].paths.home
    files = [p for p in sorted(home.rglob("*")) if p.is_file()]
    assert any(p.suffix == ".duckdb" for p in files) and any(p.suffix == ".parquet" for p in files)
    redactions = 0
    for p in files:
        data = p.read_bytes()
        for v in needles:
            assert v.encode() not in data, f"canary {v[:12]}… in {p.relative_to(home)}"
        if p.suffix in (".parquet", ".duckdb"):
            text = _decoded_text(p)
            redactions += text.count("[REDACTED:")
            for v in needles:
                assert v not in text, f"canary {v[:12]}… in the values of {p.relative_to(home)}"
    assert redactions > 0  # the decoded scan does see the (redacted) text the canaries sat in
