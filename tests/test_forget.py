"""`akw forget` through the real CLI: each kind, a residue scan of its own, tombstones, the partial answer.

The residue check here is independent of `warehouse.lifecycle.residue`: raw bytes of every file, Parquet
rows read back and DuckDB tables queried, each row as JSON; a forgotten id or a text fragment unique to it must be
nowhere under AKW_HOME (config.yaml aside: it holds only what the user typed).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest
from cli_run import akw_json
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.lifecycle.hooks import FORGET_HOOKS, register_forget_hook


def akw(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    """The real `akw` app in-process (tests/cli_run.py) over the home `env` names."""
    return akw_json(*args, env=env)


def _rows_hold(con: duckdb.DuckDBPyConnection, relation: str, needles: list[str]) -> bool:
    """Whether any row of `relation`, written out as JSON (every column, nested ones too), holds a needle."""
    cond = " OR ".join(f"contains(j, '{n.replace(chr(39), chr(39) * 2)}')" for n in needles)
    return con.execute(f"SELECT count(*) FROM (SELECT to_json(t)::VARCHAR AS j FROM {relation} AS t) "
                       f"WHERE {cond}").fetchone()[0] > 0


def leftovers(home: Path, needles: list[str], first: bool = False) -> list[str]:
    """Files under `home` holding any needle: raw bytes and file names, Parquet rows read back, DuckDB tables
    queried (`first`: stop at the first such file — enough to show the scan finds the needles at all)."""
    hits = []
    raw = [n.encode() for n in needles]
    parquet = duckdb.connect()
    for p in sorted(home.rglob("*")):
        if not p.is_file() or p.name in ("config.yaml", "akw.lock"):
            continue
        found = any(n in p.read_bytes() + p.name.encode() for n in raw)
        if not found and p.suffix == ".parquet":
            found = _rows_hold(parquet, f"read_parquet('{p}')", needles)
        if not found and p.suffix == ".duckdb":
            con = duckdb.connect(str(p), read_only=True)
            found = any(_rows_hold(con, f'"{t}"', needles)
                        for (t,) in con.execute("SELECT table_name FROM duckdb_tables()").fetchall())
            con.close()
        if found:
            hits.append(p.relative_to(home).as_posix())
            if first:
                break
    parquet.close()
    return hits


@pytest.fixture(scope="module")
def base(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """{"wh": a private copy of the shared small home, "src": its generated sources}."""
    return {"wh": small.copy(tmp_path_factory.mktemp("forget")), "src": small.src}


@pytest.fixture
def home(base: dict[str, Any], tmp_path: Path) -> tuple[Warehouse, dict[str, str]]:
    """A private copy of the built home (the sources stay shared and untouched)."""
    shutil.copytree(base["wh"].paths.home, tmp_path / "akw")
    wh = Warehouse.open(base["src"] / "dsh", base["src"] / "autoclaw", tmp_path / "akw")
    return wh, {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
                "AKW_HOME": str(wh.paths.home)}


def rows(wh: Warehouse, sql: str) -> list[list[Any]]:
    return wh.sql(sql, limit=100000)["rows"]


def unique_fragment(wh: Warehouse, where: str) -> str:
    """A 30-character piece from the middle of the target's longest text that no other document holds."""
    for (text,) in rows(wh, f"SELECT text FROM ak_document WHERE {where} AND length(text) > 120 AND kind <> 'actor' "
                            "ORDER BY length(text) DESC, doc_key LIMIT 20"):
        frag = " ".join(text.split())[60:90]
        if rows(wh, f"SELECT count(*) FROM ak_document WHERE NOT ({where}) "
                    f"AND contains(text, '{frag.replace(chr(39), chr(39) * 2)}')")[0][0] == 0:
            return frag
    raise AssertionError("no unique fragment")


def root_session(wh: Warehouse) -> str:
    """A DSH root session with no subagent or team-member children (forget cascades to children)."""
    return rows(wh, "SELECT min(session_id) FROM stg_dsh_sessions WHERE actor_kind = 'root_session' AND "
                    "session_id NOT IN (SELECT coalesce(subagent_parent, '') FROM stg_dsh_sessions) AND "
                    "session_id NOT IN (SELECT coalesce(lead_session_id, '') FROM stg_dsh_sessions)")[0][0]


def unique_skill(wh: Warehouse) -> str:
    """A skill with text of its own (a skill copied into several roots shares its text with the copies)."""
    for (key,) in rows(wh, "SELECT doc_key FROM ak_document WHERE kind = 'skill' ORDER BY doc_key"):
        try:
            unique_fragment(wh, f"kind = 'skill' AND doc_key = '{key}'")
            return key
        except AssertionError:
            continue
    raise AssertionError("every skill is a copy")


TARGETS = {
    "session": (root_session, lambda i: f"session_id = '{i}'"),
    "actor": (lambda wh: rows(wh, "SELECT min(actor_id) FROM ak_actor WHERE kind = 'autoclaw_agent' "
                                  "AND episodes > 0")[0][0], lambda i: f"actor_id = '{i}'"),
    "skill": (lambda wh: unique_skill(wh), lambda i: f"kind = 'skill' AND doc_key = '{i}'"),
    "workspace": (lambda wh: rows(wh, "SELECT min(workspace_id) FROM ak_document_workspace")[0][0],
                  lambda i: f"workspace_id = '{i}' AND session_id IS NOT NULL"),  # its files may be skills elsewhere
}


def test_dry_run_counts_and_changes_nothing(home) -> None:
    wh, env = home
    sid = root_session(wh)
    before = {p: p.read_bytes() for p in wh.paths.home.rglob("*") if p.is_file() and p.name != "akw.lock"}
    code, doc = akw(env, "forget", "session", sid)
    assert code == 0 and doc["confirmed"] is False
    would = doc["would_remove"]
    assert would["sessions"] == 1 and would["events"] > 0 and sum(would["documents"].values()) > 0
    assert would["lake_files"] >= 3  # sessions, events, artifacts of the unit
    assert {p: p.read_bytes() for p in wh.paths.home.rglob("*") if p.is_file() and p.name != "akw.lock"} == before
    frag = unique_fragment(wh, f"session_id = '{sid}'")
    assert frag not in json.dumps(doc, ensure_ascii=False)  # counts, never text


def test_a_forget_plan_does_not_import_pandas(home) -> None:
    """Binding a Python list as a DuckDB parameter imports pandas (~0.4 s of every `akw forget`): the
    target's lists go in as literals (core/db.run)."""
    wh, env = home
    code = ("import sys\nfrom pathlib import Path\nfrom warehouse.api import Warehouse\n"
            "wh = Warehouse.open(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))\n"
            "assert wh.forget('session', sys.argv[4])['would_remove']['sessions'] == 1\n"
            "print('pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, env["DSH_HOME"], env["AUTOCLAW_ROOT"], env["AKW_HOME"],
                          root_session(wh)], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("kind", sorted(TARGETS))
def test_forget_each_kind_leaves_no_residue_and_stays_forgotten(home, kind: str) -> None:
    wh, env = home
    pick, where = TARGETS[kind]
    ident = pick(wh)
    frag = unique_fragment(wh, where(ident))
    assert leftovers(wh.paths.home, [ident, frag], first=True)  # the scan finds them before
    rev0 = wh.status()["index_rev"]
    code, doc = akw(env, "forget", kind, ident, "--yes")
    assert code == 0, doc
    assert doc["confirmed"] and doc["residue"] == [] and doc["tombstones_added"] >= 1
    assert doc["index_rev"] != rev0
    assert leftovers(wh.paths.home, [ident, frag]) == []
    assert len(list(wh.paths.generations.glob("gen-*.duckdb"))) == 1  # no older generation keeps it
    # the tombstone is content-free and survives both reindex modes
    assert ident.encode() not in wh.paths.tombstones.read_bytes()
    for mode in ("full", "incremental"):
        code, run = akw(env, "reindex", "--mode", mode)
        assert code == 0, run
        assert rows(wh, f"SELECT count(*) FROM ak_document WHERE {where(ident)}")[0][0] == 0
    assert leftovers(wh.paths.home / "lake", [ident, frag]) == []
    code, found = akw(env, "search", frag)
    assert code == 0 and ident not in json.dumps(found["lanes"], ensure_ascii=False)


def test_forget_removes_the_semantic_vectors(small_on: BuiltHome, tmp_path: Path) -> None:
    """With the semantic lane on, the target's vectors are counted and go with the rebuild."""
    wh = small_on.copy(tmp_path / "akw")
    env = {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
           "AKW_HOME": str(wh.paths.home)}
    assert wh.settings.semantic.enabled and rows(wh, "SELECT count(*) FROM akw_vec")[0][0] > 0
    sid = root_session(wh)
    code, plan = akw(env, "forget", "session", sid)
    assert code == 0 and plan["would_remove"]["vectors"] >= 1
    code, doc = akw(env, "forget", "session", sid, "--yes")
    assert code == 0 and doc["residue"] == [], doc
    assert rows(wh, f"SELECT count(*) FROM akw_vec JOIN ak_document USING (doc_id) WHERE session_id = '{sid}'") \
        == [[0]]
    assert rows(wh, "SELECT count(*) FROM akw_vec")[0][0] > 0
    assert not list(wh.paths.generations.glob("*.vec.parquet"))


def test_a_dispatch_package_naming_a_forgotten_session_is_removed(home) -> None:
    from warehouse.evaluation.demo import DEMO_DISPATCH

    wh, env = home
    request = wh.paths.home.parent / "dispatch.json"
    request.write_text(json.dumps({**DEMO_DISPATCH, "dry_run": False, "commit": True}))
    code, committed = akw(env, "dispatch", "--request", str(request), "--yes")
    assert code == 0, committed
    [record] = sorted(wh.paths.outbox.glob("assign-*.json"))
    text = record.read_text(encoding="utf-8")
    named = sorted(s for (s,) in rows(wh, "SELECT DISTINCT session_id FROM ak_episode WHERE session_id IS NOT NULL")
                   if s in text)
    assert named, "the demo package names no session"
    code, plan = akw(env, "forget", "session", named[0])
    assert code == 0 and plan["would_remove"]["outbox_packages"] == 1
    code, doc = akw(env, "forget", "session", named[0], "--yes")
    assert code == 0 and doc["residue"] == [], doc
    assert not record.exists()
    assert akw(env, "dispatch", "list")[1]["assignments"] == []
    assert rows(wh, "SELECT count(*) FROM ak_assignment")[0][0] == 0


def test_forget_all_then_reindex_brings_nothing_back(home) -> None:
    wh, env = home
    code, doc = akw(env, "forget", "all", "--yes")
    assert code == 0, doc
    assert rows(wh, "SELECT count(*) FROM ak_document")[0][0] == 0
    code, _ = akw(env, "reindex", "--mode", "full")
    assert code == 0
    assert rows(wh, "SELECT count(*) FROM ak_document")[0][0] == 0


def test_a_fork_keeps_its_own_work_but_not_the_forgotten_parents_id(home) -> None:
    """Issue 25: forgetting a session that has a fork child was KNOWLEDGE_DELETE_PARTIAL (the child's
    `parent_session` kept the id in the lake and the index). The fork is another session: it stays, with
    its own events, and no longer names its parent, in every reindex mode after."""
    wh, env = home
    [[child, parent]] = rows(wh, "SELECT session_id, parent_session FROM stg_dsh_sessions "
                                 "WHERE parent_session IS NOT NULL ORDER BY session_id LIMIT 1")
    events = rows(wh, f"SELECT count(*) FROM stg_dsh_events WHERE session_id = '{child}'")[0][0]
    assert events > 0
    code, doc = akw(env, "forget", "session", parent, "--yes")
    assert code == 0, doc
    assert doc["residue"] == []
    for mode in ("full", "incremental"):
        assert akw(env, "reindex", "--mode", mode)[0] == 0
        assert rows(wh, f"SELECT parent_session, (SELECT count(*) FROM stg_dsh_events WHERE session_id = '{child}') "
                        f"FROM stg_dsh_sessions WHERE session_id = '{child}'") == [[None, events]]
    assert leftovers(wh.paths.home, [parent]) == []


def test_reports_in_the_home_naming_the_target_go_with_it(home, tmp_path: Path) -> None:
    """Issue 25: `forget all` after `akw report --out $AKW_HOME/reports` was KNOWLEDGE_DELETE_PARTIAL (the
    report kept the ids). A report in the home is a snapshot of the index: it goes whole; one the user
    wrote elsewhere is theirs and stays."""
    wh, env = home
    inside, outside = wh.paths.reports_dir, tmp_path / "mine"
    for folder in (inside, outside):
        assert akw(env, "report", "--out", str(folder))[0] == 0
    sid = root_session(wh)
    assert leftovers(inside, [sid]) and leftovers(outside, [sid])  # the reports name the session
    naming = leftovers(inside, [sid])
    code, plan = akw(env, "forget", "all")
    assert code == 0 and plan["would_remove"]["reports"] >= len(naming) > 0
    code, doc = akw(env, "forget", "all", "--yes")
    assert code == 0 and doc["residue"] == [], doc
    assert leftovers(wh.paths.home, [sid]) == [] and not [n for n in naming if (inside / n).exists()]
    assert leftovers(outside, [sid])  # not the home's: untouched


def test_an_unwired_store_is_a_partial_delete_and_a_hook_clears_it(home) -> None:
    """A store the forget does not know (here: a notes file naming the session) stays behind: the answer
    is KNOWLEDGE_DELETE_PARTIAL naming the file; registered as a forget hook, the same store is cleared."""
    wh, env = home
    sid = root_session(wh)
    store = wh.paths.home / "notes" / "notes.jsonl"
    store.parent.mkdir()
    store.write_text(json.dumps({"result_id": f"ep:harness:{sid}:1", "useful": True}) + "\n")
    code, doc = akw(env, "forget", "session", sid, "--yes")
    assert code != 0
    [err] = doc["errors"]
    assert err["code"] == "KNOWLEDGE_DELETE_PARTIAL"
    assert [r["path"] for r in err["remaining"]] == ["notes/notes.jsonl"]
    assert rows(wh, f"SELECT count(*) FROM ak_document WHERE session_id = '{sid}'")[0][0] == 0  # the rest went

    def forget_notes(paths, item_ids: set[str]) -> int:
        f = paths.home / "notes" / "notes.jsonl"
        kept = [ln for ln in f.read_text().splitlines() if not any(i in ln for i in item_ids)]
        f.write_text("".join(ln + "\n" for ln in kept))
        return 1

    # a lead with subagent/team-member sessions: they go with it (their actor ids carry its id)
    other = rows(wh, "SELECT min(session_id) FROM stg_dsh_sessions WHERE actor_kind = 'root_session'")[0][0]
    children = rows(wh, f"SELECT count(*) FROM stg_dsh_sessions WHERE '{other}' IN (subagent_parent, lead_session_id)")
    assert other != sid and children[0][0] > 0
    store.write_text(json.dumps({"result_id": f"ep:harness:{other}:1", "useful": False}) + "\n")
    register_forget_hook("test-notes", forget_notes)
    try:
        doc = wh.forget("session", other, confirm=True)
    finally:
        FORGET_HOOKS.pop("test-notes")
    assert doc["hooks"] == {"access_counter": 0, "feedback": 0, "test-notes": 1, "trust": doc["hooks"]["trust"]}
    assert doc["hooks"]["trust"] > 0 and doc["residue"] == [], "its episodes and actors had ak_trust rows"
    assert doc["removed"]["sessions"] == 1 + children[0][0]
    assert rows(wh, f"SELECT count(*) FROM ak_actor WHERE contains(actor_id, '{other}')")[0][0] == 0


def test_feedback_on_a_forgotten_session_goes_with_it(home) -> None:
    """The feedback store is a built-in forget hook: a verdict on the session's episode is removed."""
    wh, _env = home
    sid = root_session(wh)
    [[episode]] = rows(wh, f"SELECT min(episode_id) FROM ak_episode WHERE session_id = '{sid}'")
    wh.feedback(episode, True)
    doc = wh.forget("session", sid, confirm=True)
    assert doc["hooks"]["feedback"] == 1 and doc["residue"] == []
    assert sid not in (wh.paths.home / "feedback" / "feedback.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize(("args", "code"), [
    (["forget", "session", "no-such-session", "--yes"], "KNOWLEDGE_NOT_FOUND"),
    (["forget", "planet", "x"], "KNOWLEDGE_INVALID_REQUEST"),
    (["forget", "session"], "KNOWLEDGE_INVALID_REQUEST"),
])
def test_bad_targets_are_coded(home, args: list[str], code: str) -> None:
    _wh, env = home
    rc, doc = akw(env, *args)
    assert rc != 0 and doc["errors"][0]["code"] == code


def test_index_delete_dry_run_then_delete(home) -> None:
    wh, env = home
    code, plan = akw(env, "index", "delete")
    assert code == 0 and plan["would_remove"]["generations"]["files"] >= 2
    assert wh.paths.generations.exists()
    code, doc = akw(env, "index", "delete", "--yes")
    assert code == 0 and doc["confirmed"]
    assert not wh.paths.generations.exists() and not wh.paths.lake.exists() and not wh.paths.state_dir.exists()
    assert wh.paths.config_file.exists() or not plan.get("config")
    code, st = akw(env, "status")
    assert st["state"] == "not_ready"


def test_the_residue_scan_reads_a_folder_of_parquet_files_together_and_a_bad_one_alone(tmp_path: Path) -> None:
    """Parquet pages are compressed, so the scan reads the rows back: one query per folder, and file by file
    when a folder cannot be read together (an unreadable file is then named, the others still read)."""
    from warehouse.lifecycle import residue

    needle = "needle-7f3a9c-in-a-compressed-page"
    con = duckdb.connect()
    for folder in ("good", "mixed"):
        (tmp_path / folder).mkdir()
        for i in range(3):  # neither the smallest nor the largest value: not in the page statistics either
            rows = ", ".join(f"({j}, '{text}' || repeat('q', 200))" for j, text in
                             enumerate(("a", f"m {needle} m" if i == 1 else "m other", "z")))
            con.execute(f"COPY (SELECT * FROM (VALUES {rows}) AS t(n, body)) TO "
                        f"'{tmp_path / folder / f'u{i}.parquet'}' (FORMAT parquet, COMPRESSION gzip)")
    (tmp_path / "mixed" / "u3.parquet").write_bytes(b"PAR1 torn")
    con.close()
    assert needle.encode() not in (tmp_path / "good" / "u1.parquet").read_bytes()  # only the rows show it
    found = {f["path"]: f["found"] for f in residue.scan(tmp_path, {"fragment-1": needle})}
    assert found == {"good/u1.parquet": ["fragment-1"], "mixed/u1.parquet": ["fragment-1"],
                     "mixed/u3.parquet": ["unreadable-parquet"]}
