"""Issue 17: access control maps principals to writers on a shared lake (`access.principals.<e>.writers`).

Two writers push, a third machine builds from the snapshot; a principal allowed only alice's writer
sees none of bob's sessions or phrases, one allowed both sees both (real PostgreSQL, real processes).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import akw_fixtures
import duckdb
import pytest
from team_helpers import akw

from warehouse.api import Warehouse
from warehouse.core.paths import Paths

pytestmark = pytest.mark.team
WORD = re.compile(r"[a-z][a-z0-9_-]{5,}")


def _init(home: Path, fx: Path, cat: dict[str, str], writer: str) -> None:
    akw(home, fx, "team", "init", "--catalog", cat["dsn"], "--data-path", cat["data_path"], "--writer-id", writer,
        PGPASSFILE=cat["passfile"])


def _lake(home: Path, table: str, col: str) -> set[str]:
    files = f"{home}/lake/bronze/dsh/{table}/*.parquet"
    return {r[0] for r in duckdb.sql(f"SELECT DISTINCT {col} FROM read_parquet('{files}') WHERE {col} IS NOT NULL"
                                     ).fetchall()}


def _words(home: Path) -> set[str]:
    """Every word of every bronze value of a home (all sources, all columns)."""
    out: set[str] = set()
    for f in sorted((home / "lake" / "bronze").glob("*/*/*.parquet")):
        for row in duckdb.sql(f"SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_parquet('{f}')").fetchall():
            out.update(w for v in row if v for w in WORD.findall(v.lower()))
    return out


def _has(text: str, word: str) -> bool:
    """`word` as a whole word (what WORD finds), not as part of a longer one (s_client is not client)."""
    return re.search(rf"(?<![a-z0-9_-]){re.escape(word)}(?![a-z0-9_-])", text.lower()) is not None


def _unechoed(doc: object, q: str) -> object:
    if isinstance(doc, dict):
        return {k: _unechoed(v, q) for k, v in doc.items() if k not in ("query", "request", "normalized_query")}
    if isinstance(doc, list):
        return [_unechoed(v, q) for v in doc]
    return "" if isinstance(doc, str) and doc.strip().lower() == q.lower() else doc


def test_a_principal_sees_only_the_writers_it_is_given(tmp_path: Path, team_catalog: dict[str, str]) -> None:
    fx = {w: tmp_path / f"fx-{w}" for w in ("alice", "bob", "empty")}
    akw_fixtures.generate(fx["alice"], sessions=6, seed=21)
    akw_fixtures.generate(fx["bob"], sessions=6, seed=22)
    later = time.time() + 120  # bob's copies of the skills both homes hold are the newer ones: the build keeps
    for f in (fx["bob"] / "dsh" / "skills").rglob("*"):  # bob's row, which a principal of alice's must not see
        os.utime(f, (later, later))
    (fx["empty"] / "dsh").mkdir(parents=True)
    (fx["empty"] / "autoclaw").mkdir()
    pgpass = {"PGPASSFILE": team_catalog["passfile"]}
    for w in ("alice", "bob"):
        _init(tmp_path / w, fx[w], team_catalog, w)
        assert akw(tmp_path / w, fx[w], "team", "push", **pgpass)["push"]["ok"]
    reader = tmp_path / "carol"
    _init(reader, fx["empty"], team_catalog, "carol")
    akw(reader, fx["empty"], "config", "set", f"lake.passfile={team_catalog['passfile']}")
    assert akw(reader, fx["empty"], "reindex")["outcome"] == "published"

    bob_sessions = _lake(tmp_path / "bob", "sessions", "session_id")
    alice_sessions = _lake(tmp_path / "alice", "sessions", "session_id")
    assert bob_sessions and alice_sessions and not bob_sessions & alice_sessions
    bob_events = {w for t in _lake(tmp_path / "bob", "events", "text") for w in WORD.findall(t.lower())}
    bob_only = sorted(bob_events - _words(tmp_path / "alice"))[:30]
    assert bob_only, "the seeds give bob words alice never used"
    sql = lambda q: [r[0] for r in akw(reader, fx["empty"], "sql", q)["rows"]]  # noqa: E731
    every = {"workspaces": sql("SELECT workspace_id FROM ak_acl_workspace"),
             "autoclaw_accounts": sql("SELECT account FROM ak_acl_account"),
             "skills_roots": sql("SELECT root_path FROM ak_acl_skill_root")}
    by_writer = sql("SELECT DISTINCT writer_id FROM ak_acl_writer ORDER BY 1")
    assert by_writer == ["alice", "bob"]
    principals = {"a@example.com": {**every, "writers": ["alice"]},
                  "ab@example.com": {**every, "writers": ["alice", "bob"]},
                  "none@example.com": {**every, "writers": []},
                  "all@example.com": every}
    for kv in (f"access.principals={json.dumps(principals)}", "access.live_check=false", "access.enabled=true"):
        akw(reader, fx["empty"], "config", "set", kv)

    wh = Warehouse(Paths.resolve(home=reader))
    queries = [*bob_only, "nginx", "postgres backup", "deploy", "disk usage"]

    def answers(who: str) -> dict[str, str]:
        """query -> the answer of `who`, without the echo of its query (the words asked are not words found)."""
        scoped = wh.as_principal(who)
        return {q: json.dumps(_unechoed(scoped.search_text(q, limit=50), q), ensure_ascii=False) for q in queries}

    def found(got: dict[str, str], word: str) -> bool:
        """`word` in an answer to another query (a why-text names the words its own query matched)."""
        return any(_has(text, word) for q, text in got.items() if q != word)

    def seen(who: str) -> str:
        return "\n".join(answers(who).values())

    nothing = seen("none@example.com")  # writers: []: no document at all, only the response's own words
    assert not [s for s in bob_sessions | alice_sessions if s in nothing]
    both = answers("ab@example.com")
    phrases = [w for w in bob_only if not _has(nothing, w) and found(both, w)]
    assert phrases  # the phrase check can fail: principal ab is shown bob's words
    got_a = answers("a@example.com")
    only_alice = "\n".join(got_a.values())
    assert not [s for s in bob_sessions if s in only_alice]  # none of bob's sessions...
    assert not [w for w in phrases if found(got_a, w)]  # ...nor a phrase only bob's sessions hold
    assert [s for s in alice_sessions if s in only_alice]  # the check can fail: alice's are found
    both_text = "\n".join(both.values())
    assert [s for s in bob_sessions if s in both_text] and [s for s in alice_sessions if s in both_text]
    assert [s for s in bob_sessions if s in seen("all@example.com")]  # no writers key: every writer


def test_a_local_build_is_the_local_writers(tmp_path: Path) -> None:
    """No team lake: every document is `lake.writer_id`'s (`local` when unset), so a writers list still resolves."""
    src = tmp_path / "src"
    akw_fixtures.generate(src, sessions=4, seed=3)
    wh = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "home")
    wh.reindex()
    every = {"workspaces": [r[0] for r in wh.sql("SELECT workspace_id FROM ak_acl_workspace")["rows"]],
             "autoclaw_accounts": [r[0] for r in wh.sql("SELECT account FROM ak_acl_account")["rows"]]}
    assert wh.sql("SELECT count(*) FROM ak_acl_writer")["rows"] == [[0]]
    sessions = {r[0] for r in wh.sql("SELECT session_id FROM stg_dsh_sessions")["rows"]}
    principals = {"local@x": {**every, "writers": ["local"]}, "box@x": {**every, "writers": ["alice-box"]}}

    def sees(settings_kv: list[str], who: str) -> bool:
        s = wh.settings
        for kv in ["access.enabled=true", "access.live_check=false", f"access.principals={json.dumps(principals)}",
                   *settings_kv]:
            key, value = kv.split("=", 1)
            s = s.with_value(key, value)
        got = Warehouse(wh.paths, s).as_principal(who)
        text = "\n".join(json.dumps(got.search_text(q, limit=50)) for q in ("nginx", "deploy", "backup postgres"))
        return any(sid in text for sid in sessions)

    assert sees([], "local@x") and not sees([], "box@x")
    assert sees(["lake.writer_id=alice-box"], "box@x") and not sees(["lake.writer_id=alice-box"], "local@x")
