"""The knowledge model (spec FR-4) against the generator's ground truth (manifest.json).

One generated home (24 sessions) is indexed once per module; every test reads the published
generation read-only. Numbers a reviewer wants (build time, outcome accuracy) are printed (-s).
"""

from __future__ import annotations

import io
import json
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

import akw_fixtures
import duckdb
import pytest
import zstandard

from warehouse.api import Warehouse
from warehouse.core.redact import redact
from warehouse.home import generation
from warehouse.indexing import transform

SESSIONS, SEED = 24, 7
# mart -> its id column: every id is a stable, prefixed string (never a row number) and unique
ID_COLUMNS = {
    "ak_episode": ("episode_id", r"episode:(harness:session-[0-9a-f]+:\d+|autoclaw:\d+:run_[0-9a-f]+)"),
    "ak_actor": ("actor_id", r"actor:(harness:(root|subagent|team_member):\S+|autoclaw:agent:\d+:agt_[0-9a-f]+)"),
    "ak_document": ("doc_key", r"(ep:\S+:\d+|mem:\d+:mem_[0-9a-f]+|chunk:\S+|skill:\S+|actor:\S+)"),
    "ak_skill": ("skill_id", r"skill:\S+"),
    "ak_skill_use": ("skill_use_id", r"use:episode:\S+:\d+"),
    "ak_artifact": ("artifact_id", r"artifact:\S+:\d+:[0-9a-f]{8}"),
    "ak_event": ("event_id", r"ev:\S+:\d+"),
    "ak_memory": ("memory_key", r"memory:autoclaw:\d+:mem_[0-9a-f]+"),
}
INJECTED_MARKERS = ("Current time:", "Available skills", "Model for this turn", "Background jobs:",
                    "Context compacted", "You are a DSH agent", "cwd: ")
DISPATCH_MODE = {"root_session": "spawn_replica", "subagent": "spawn_replica", "team_member": "team_task",
                 "autoclaw_agent": "external_handoff"}


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("models")
    return out, akw_fixtures.generate(out, sessions=SESSIONS, seed=SEED)


@pytest.fixture(scope="module")
def built(src: tuple[Path, dict[str, Any]]) -> tuple[Warehouse, dict[str, Any]]:
    out, _ = src
    wh = Warehouse.open(out / "dsh", out / "autoclaw", out / "akw")
    t0 = time.perf_counter()
    report = wh.reindex(mode="incremental")
    print(f"\n[test_models] build of a {SESSIONS}-session home: {time.perf_counter() - t0:.2f} s")
    assert report["outcome"] == "published"
    return wh, report


@pytest.fixture(scope="module")
def con(built: tuple[Warehouse, dict[str, Any]]) -> duckdb.DuckDBPyConnection:
    c, _ = generation.open_current(built[0].paths.generations)
    yield c
    c.close()


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    """Query -> list of dicts (through Arrow/polars, so TIMESTAMPTZ needs no pytz)."""
    return con.execute(sql, params or []).pl().to_dicts()


@pytest.fixture(scope="module")
def episodes(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    return rows(con, "SELECT e.*, d.text AS doc_text FROM ak_episode e "
                     "LEFT JOIN ak_document d ON d.episode_id = e.episode_id AND d.kind = 'episode' "
                     "ORDER BY e.episode_id")


def _match(task: dict[str, Any], episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if task["source"] == "harness":
        return [e for e in episodes if e["source"] == "harness" and e["session_id"] == task["session_id"]
                and e["seq_first"] == task["seq_range"][0]]
    return [e for e in episodes if e["source"] == "autoclaw" and e["account"] == task["account"]
            and e["run_id"] == task["run_id"]]


def _matched(src: tuple[Path, dict[str, Any]], episodes: list[dict[str, Any]]) -> list[tuple[dict, dict]]:
    """(task, episode) for every task that must be indexed (deleted AutoClaw sessions are not)."""
    out = []
    for t in src[1]["tasks"]:
        found = _match(t, episodes)
        if not t.get("deleted"):
            assert len(found) == 1, f"{t['task_id']}: {len(found)} episodes"
            out.append((t, found[0]))
    return out


# -- episodes ------------------------------------------------------------------------
def test_every_task_is_exactly_one_episode(src, episodes) -> None:
    tasks = src[1]["tasks"]
    for t in tasks:
        found = _match(t, episodes)
        assert len(found) == (0 if t.get("deleted") else 1), t["task_id"]
    live = [t for t in tasks if not t.get("deleted")]
    # nothing beyond the tasks: every human message is one task, every live run is one task
    assert Counter(e["source"] for e in episodes) == Counter(t["source"] for t in live)


def test_episode_actor_skills_and_span(src, episodes) -> None:
    for t, e in _matched(src, episodes):
        assert e["actor_id"] == t["actor_id"], t["task_id"]
        assert sorted(e["skills"]) == sorted(t["skills"]), t["task_id"]
        if t["source"] == "harness":
            assert e["seq_last"] >= t["seq_range"][1], t["task_id"]
        else:
            assert e["entry_ids"] and set(e["entry_ids"]) <= set(t["entry_ids"]), t["task_id"]


def test_owner_rule_is_the_variant_the_session_used(src, episodes) -> None:
    """AutoClaw sessions name their agent by id, preset URI name, label or only by participation
    (akw_fixtures.autoclaw.OWNER_VARIANTS); each links its true owner and says by which rule."""
    rules = set()
    for t, e in _matched(src, episodes):
        assert e["owner_rule"] == t.get("owner_rule", "session"), t["task_id"]
        rules.add(e["owner_rule"])
    assert rules == {"session", "id", "name", "label", "participation"}


def test_outcome_accuracy(src, episodes) -> None:
    pairs = _matched(src, episodes)
    hits = sum(e["outcome"] == t["outcome"] for t, e in pairs)
    accuracy = hits / len(pairs)
    misses = [(t["task_id"], t["outcome"], e["outcome"]) for t, e in pairs if e["outcome"] != t["outcome"]]
    print(f"\n[test_models] outcome accuracy {hits}/{len(pairs)} = {accuracy:.3f}; misses: {misses}")
    assert accuracy >= 0.9


def test_goal_is_the_human_request(src, episodes, con) -> None:
    for t, e in _matched(src, episodes):
        assert (e["doc_text"] or "").startswith(redact(t["request"]) or ""), t["task_id"]
    injected = {r["text"] for r in rows(con, "SELECT DISTINCT text FROM stg_dsh_events "
                                             "WHERE role = 'injected' AND text IS NOT NULL")}
    assert len(injected) > 10  # the fixture plants every injection kind
    for e in episodes:
        goal = (e["doc_text"] or "").split("\n", 1)[0]
        assert not goal.startswith(INJECTED_MARKERS), e["episode_id"]
        assert not any(goal.startswith(i.split("\n", 1)[0]) for i in injected), e["episode_id"]


def test_a_later_episode_is_titled_by_its_own_request(src, episodes, con) -> None:
    """Issue 24: every turn of a multi-task session used to carry the first task's (the session's) title."""
    session_title = dict(con.execute("SELECT session_id, title FROM stg_dsh_sessions").fetchall())
    later = [(t, e) for t, e in _matched(src, episodes)
             if e["source"] == "harness" and not e["episode_id"].endswith((":0", ":1"))]
    assert len(later) >= 5  # the fixture has multi-task sessions
    for t, e in later:
        request = " ".join((redact(t["request"]) or "").split("\n", 1)[0].split())
        assert e["title"] != session_title[e["session_id"]], e["episode_id"]
        assert request.startswith(e["title"].removesuffix("…")), (e["episode_id"], e["title"])
        assert len(e["title"]) <= 81


def test_participants(src, episodes, con) -> None:
    manifest = src[1]
    names = {a["actor_id"]: a["name"] for a in manifest["actors"]}
    edges = {(r["src_id"], r["dst_id"]) for r in rows(con, "SELECT src_id, dst_id FROM ak_relation "
                                                          "WHERE rel = 'participated'")}
    for t, e in _matched(src, episodes):
        if t["source"] == "autoclaw":
            assert sorted(e["participants"]) == sorted(names[p] for p in t["participants"]), t["task_id"]
            assert all((p, e["episode_id"]) in edges for p in t["participants"]), t["task_id"]
    delegated = [a for a in manifest["actors"] if a["kind"] in ("subagent", "team_member")]
    assert delegated
    for a in delegated:  # the lead/parent session delegated to it by name in some episode
        assert any(e["session_id"] == a["parent_session_id"] and a["name"] in e["participants"]
                   for e in episodes), a["actor_id"]


# -- events ----------------------------------------------------------------------------
def test_replayed_events_counted_once(src, con) -> None:
    counts = src[1]["counts"]
    n, distinct = con.execute("SELECT count(*), count(DISTINCT event_id) FROM ak_event "
                              "WHERE source = 'harness'").fetchone()
    # dsh_events_unique already excludes headers, replayed parent history and truncated tails
    assert n == distinct == counts["dsh_events_unique"]
    replayed = con.execute("SELECT sum(events_replayed) FROM stg_dsh_sessions").fetchone()[0]
    assert replayed == counts["dsh_replayed_events"] > 0
    early = con.execute("SELECT count(*) FROM ak_event e JOIN stg_dsh_sessions s USING (session_id) "
                        "WHERE e.source = 'harness' AND e.time < s.created_at").fetchone()[0]
    assert early == 0  # nothing from before a fork's createdAt (the replayed parent history)
    humans = con.execute("SELECT count(*) FROM ak_event WHERE source = 'harness' AND role = 'human'").fetchone()[0]
    assert humans == counts["dsh_human_messages"]


def test_autoclaw_duplicates_flagged(src, con) -> None:
    counts = src[1]["counts"]
    dup = dict(con.execute("SELECT entry_type, count(*) FILTER (WHERE is_duplicate) FROM stg_ac_entries "
                           "GROUP BY ALL").fetchall())
    assert dup["request"] == counts["autoclaw_duplicate_requests"] > 0
    assert dup["answer"] == counts["autoclaw_answer_duplicates"] > 0
    total = con.execute("SELECT count(*) FROM stg_ac_entries").fetchone()[0]
    assert total == counts["autoclaw_entries"]
    leaked = con.execute("SELECT count(*) FROM ak_document d JOIN stg_ac_entries x "
                         "ON d.doc_key = 'ep:' || x.session_id || ':' || x.session_seq "
                         "WHERE x.is_duplicate").fetchone()[0]
    assert leaked == 0  # a duplicate is never a separate search document


# -- actors and skills -------------------------------------------------------------------
def test_actors(src, con) -> None:
    actors = {r["actor_id"]: r for r in rows(con, "SELECT actor_id, kind, dispatch_mode, session_ids FROM ak_actor")}
    manifest = src[1]["actors"]
    assert len(actors) == len(manifest)
    for a in manifest:
        got = actors.get(a["actor_id"])
        assert got is not None, a["actor_id"]
        assert got["kind"] == a["kind"], a["actor_id"]
        assert got["dispatch_mode"] == DISPATCH_MODE[a["kind"]], a["actor_id"]
        if a["source"] == "harness":
            assert a["session_id"] in got["session_ids"], a["actor_id"]


def test_skill_uses_by_tool_and_slash(src, episodes, con) -> None:
    uses = rows(con, "SELECT episode_id, skill_name, skill_id, via FROM ak_skill_use")
    by_episode: dict[str, list[dict[str, Any]]] = {}
    for u in uses:
        by_episode.setdefault(u["episode_id"], []).append(u)
    seen_via = set()
    for t, e in _matched(src, episodes):
        got = by_episode.get(e["episode_id"], [])
        assert sorted({u["skill_name"] for u in got}) == sorted(t["skills"]), t["task_id"]
        if t["source"] == "harness" and t["skills"]:
            assert {u["via"] for u in got} == {t["skill_via"]}, t["task_id"]
            seen_via.add(t["skill_via"])
    assert seen_via == {"tool", "slash"}
    assert all(u["skill_id"] for u in uses)  # every used name resolves to a known skill
    total = con.execute("SELECT sum(uses) FROM ak_skill").fetchone()[0]
    assert total == len(uses)


def test_skill_used_by_is_the_newest_five_actors(con) -> None:
    """ak_skill.used_by (what a skills-lane item shows) = per actor: uses and latest episode, newest first."""
    uses = rows(con, "SELECT skill_id, actor_id, episode_id, time FROM ak_skill_use WHERE actor_id IS NOT NULL")
    per: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for u in uses:
        per.setdefault((u["skill_id"], u["actor_id"]), []).append(u)
    skills = rows(con, "SELECT skill_id, used_by FROM ak_skill")
    assert any(s["used_by"] for s in skills)
    for s in skills:
        mine = [(max(u["time"] for u in us), actor, us) for (sid, actor), us in per.items() if sid == s["skill_id"]]
        mine.sort(key=lambda x: (-x[0].timestamp(), x[1]))
        assert [(u["actor_id"], u["uses"]) for u in s["used_by"]] == [(a, len(us)) for _, a, us in mine[:5]]
        for u, (last, _, us) in zip(s["used_by"], mine, strict=False):
            assert u["episode_id"] in {x["episode_id"] for x in us if x["time"] == last}


def test_actor_skills_are_their_recorded_uses(con) -> None:
    uses = rows(con, "SELECT actor_id, skill_name, count(*) AS n FROM ak_skill_use WHERE actor_id IS NOT NULL "
                     "GROUP BY ALL")
    actors = rows(con, "SELECT actor_id, top_skills, skill_names FROM ak_actor")
    assert any(a["top_skills"] for a in actors)
    for a in actors:
        mine = sorted((-u["n"], u["skill_name"]) for u in uses if u["actor_id"] == a["actor_id"])
        assert [(s["name"], s["uses"]) for s in a["top_skills"]] == [(name, -n) for n, name in mine[:5]]
        assert a["skill_names"] == sorted(name for _, name in mine)


def test_document_workspace_numbers(con) -> None:
    """ws_no names exactly one (workspace_id, workspace_path) pair; documents without either have none."""
    bad = con.execute("""
        SELECT count(*) FROM ak_document d LEFT JOIN ak_document_workspace w USING (ws_no)
        WHERE (d.ws_no IS NULL) <> (d.workspace_id IS NULL AND d.workspace_path IS NULL)
           OR w.workspace_id IS DISTINCT FROM d.workspace_id OR w.workspace_path IS DISTINCT FROM d.workspace_path
    """).fetchone()[0]
    assert bad == 0
    n_pairs, n_rows, docs = con.execute("SELECT (SELECT count(*) FROM (SELECT DISTINCT workspace_id, workspace_path "
                                        "FROM ak_document WHERE ws_no IS NOT NULL)), count(*), sum(documents) "
                                        "FROM ak_document_workspace").fetchone()
    assert n_pairs == n_rows > 1
    assert docs == con.execute("SELECT count(*) FROM ak_document WHERE ws_no IS NOT NULL").fetchone()[0]


def test_compression_hints_are_applied(con) -> None:
    hints = transform.discover()["ak_document"].compression
    assert hints["title"] == "uncompressed"
    got = con.execute("SELECT DISTINCT column_name, compression FROM pragma_storage_info('ak_document') "
                      "WHERE segment_type <> 'VALIDITY'").fetchall()
    for col in hints:
        assert {c for name, c in got if name == col} <= {"Uncompressed", "Constant"}, col


def test_bad_compression_hint_is_an_error(tmp_path) -> None:
    (tmp_path / "marts").mkdir(parents=True)
    (tmp_path / "macros").mkdir()
    (tmp_path / "marts" / "t.sql").write_text("-- compression: nope=uncompressed\nSELECT 1 AS a\n")
    with pytest.raises(ValueError, match="unknown column"):
        transform.run(duckdb.connect(), tmp_path, sql_dir=tmp_path)
    (tmp_path / "marts" / "t.sql").write_text("-- compression: a=zip\nSELECT 1 AS a\n")
    with pytest.raises(ValueError, match="bad compression hint"):
        transform.run(duckdb.connect(), tmp_path, sql_dir=tmp_path)


# -- evidence --------------------------------------------------------------------------
def _session_events(dsh_home: Path, session_id: str) -> dict[int, dict[str, Any]]:
    """Own events of a session file by seq, decoded independently of the extractor."""
    [path] = dsh_home.glob(f"sessions/*/{session_id}/session.v4.jsonl.zstd")
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(path.read_bytes()), read_across_frames=True)
    lines = reader.read().decode("utf-8").split("\n")
    header = json.loads(lines[0])
    out = {}
    for line in lines[1:]:
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # a torn tail
        if obj["time"] >= header["createdAt"]:
            out[obj["seq"]] = obj
    return out


def test_evidence_refs_resolve_to_source_events(src, episodes, con) -> None:
    harness = [e for e in episodes if e["source"] == "harness"]
    sample = harness[::5]
    assert len(sample) >= 8
    for e in sample:
        assert e["evidence_ref"] == f"{e['session_id']}#seq={e['seq_first']}-{e['seq_last']}"
        events = _session_events(src[0] / "dsh", e["session_id"])
        first = events[e["seq_first"]]
        assert e["seq_last"] in events
        assert first["type"] == "user/message" and first["data"]["source"]["kind"] == "user"
        goal = first["data"]["content"][0]["text"]
        assert (e["doc_text"] or "").startswith(redact(goal) or ""), e["episode_id"]
        seqs = [r[0] for r in con.execute("SELECT seq FROM ak_event WHERE episode_id = ? ORDER BY seq",
                                          [e["episode_id"]]).fetchall()]
        assert seqs[0] == e["seq_first"] and seqs[-1] == e["seq_last"]
        assert set(seqs) <= set(events), e["episode_id"]
        span = [s for s in events if e["seq_first"] <= s <= e["seq_last"]]
        assert sorted(span) == seqs  # the episode is exactly the source events in its span
    for e in (x for x in episodes if x["source"] == "autoclaw"):
        assert e["evidence_ref"] == f"autoclaw:{e['account']}/{e['run_id']}"


# -- ids ---------------------------------------------------------------------------------
def test_ids_unique_and_not_row_numbers(con) -> None:
    """Each id is declared unique and not null in its model's header, and the declarations hold."""
    models = transform.discover()
    for table, (col, pattern) in ID_COLUMNS.items():
        declared = models[table].constraints
        assert transform.Constraint(table, "unique", (col,)) in declared, table
        assert transform.Constraint(table, "not_null", (col,)) in declared, table
        assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table
        bad = [r[0] for r in con.execute(f"SELECT {col} FROM {table}").fetchall()
               if not re.fullmatch(pattern, r[0])]
        assert not bad, (table, bad[:3])
    assert transform.check_constraints(con) == []


def test_ids_stable_across_builds(src, built, con, tmp_path) -> None:
    out = src[0]
    other = Warehouse.open(out / "dsh", out / "autoclaw", tmp_path / "akw2")
    report = other.reindex(mode="full")
    assert report["index_rev"] == built[1]["index_rev"]
    c2, _ = generation.open_current(other.paths.generations)
    try:
        for table, (col, _) in {**ID_COLUMNS, "ak_document": ("doc_key || '#' || doc_id", "")}.items():
            q = f"SELECT {col} FROM {table} ORDER BY 1"
            assert con.execute(q).fetchall() == c2.execute(q).fetchall(), table
    finally:
        c2.close()


# -- coverage and documentation ------------------------------------------------------
def test_coverage_reconciles_with_manifest(src, built, con) -> None:
    cov = rows(con, "SELECT * FROM ak_coverage ORDER BY source, entity")
    assert [(r["source"], r["entity"]) for r in cov] == [
        ("autoclaw", "entries"), ("autoclaw", "memories"), ("autoclaw", "runs"), ("autoclaw", "sessions"),
        ("claude_code", "events"), ("claude_code", "sessions"), ("code", "chunks"), ("code", "files"),
        ("codex", "events"), ("codex", "sessions"), ("dsh", "events"), ("dsh", "sessions"),
        ("skills", "skills_live"), ("skills", "skills_removed")]
    assert all(r["ok"] for r in cov), [r for r in cov if not r["ok"]]
    assert built[1]["build"]["coverage"] == cov  # the run record carries the same rows (akw status)
    m = src[1]
    c = {(r["source"], r["entity"]): r for r in cov}
    live_tasks = [t for t in m["tasks"] if t["source"] == "autoclaw" and not t["deleted"]]
    expected = {
        ("dsh", "sessions"): m["counts"]["dsh_session_files"],
        ("dsh", "events"): m["counts"]["dsh_events_unique"],
        ("autoclaw", "runs"): len(live_tasks),
        ("autoclaw", "sessions"): m["counts"]["autoclaw_sessions"] - m["counts"]["autoclaw_sessions_deleted"],
        ("autoclaw", "memories"): m["counts"]["autoclaw_memories"],
        ("skills", "skills_live"): m["counts"]["skills_live"],
        ("skills", "skills_removed"): m["counts"]["skills_removed"],
        ("code", "files"): m["counts"]["code_files_indexable"],
    }
    for key, n in expected.items():
        assert c[key]["source_units"] == c[key]["indexed"] == n, key
    entries = c[("autoclaw", "entries")]
    assert entries["duplicates"] > 0 and entries["indexed"] + entries["duplicates"] == entries["source_units"]


def test_marts_are_documented(con) -> None:
    marts = {m.name: m for m in transform.discover().values() if m.layer == "marts"}
    tables = dict(con.execute("SELECT table_name, comment FROM duckdb_tables()").fetchall())
    comments = {(t, c): x for t, c, x in con.execute("SELECT table_name, column_name, comment "
                                                     "FROM duckdb_columns()").fetchall()}
    for name, m in marts.items():
        assert tables.get(name), f"{name}: no table comment"
        for col, text in m.column_docs.items():
            assert comments.get((name, col)) == text, (name, col)
    for name in ("ak_actor", "ak_episode", "ak_event", "ak_document", "ak_skill", "ak_skill_use", "ak_coverage"):
        assert any(x for (t, _), x in comments.items() if t == name), f"{name}: no column comments"


def test_autoclaw_skill_calls_name_the_skill_only_from_a_json_input() -> None:
    """int_ac_skill_calls parses a call's input once and reads `name`, `skill` or `skillId`; an input that
    is no JSON (a tool error) names no skill, and another tool's call is no skill use."""
    con = duckdb.connect()
    for macro in sorted((transform.SQL_DIR / "macros").glob("*.sql")):
        con.execute(macro.read_text(encoding="utf-8"))
    con.execute("""CREATE TABLE stg_ac_entries AS SELECT * FROM (VALUES
        ('e1', 'load_skill', '{"name": "pdf"}'), ('e2', 'Skill', '{"skill": "docx"}'),
        ('e3', 'use_skill', 'ERROR 1290 (HY000): not JSON'), ('e4', 'skills.load', '{"skillId": "xlsx"}'),
        ('e5', 'bash', '{"name": "not a skill"}'), ('e6', 'skill', '{"other": 1}'), ('e7', 'skill', '{"name": 5')
        ) v(entry_id, tool_name, tool_input),
        LATERAL (SELECT 'acct' AS account, 's1' AS session_id, 'r1' AS run_id, 1 AS session_seq,
                        TIMESTAMPTZ '2026-01-01 00:00:00+00' AS committed_at, 'tool_call' AS entry_type)""")
    sql = transform.render_model(transform.discover()["int_ac_skill_calls"].source, lambda source, table: "")
    rows = con.execute(f"SELECT entry_id, skill_name FROM ({sql}) ORDER BY entry_id").fetchall()
    assert rows == [("e1", "pdf"), ("e2", "docx"), ("e4", "xlsx")]
