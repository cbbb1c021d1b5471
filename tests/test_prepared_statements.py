"""The search session's prepared statements name each parameter once.

DuckDB re-binds and re-plans a prepared statement on every EXECUTE when a parameter appears more
than once (measured on fuse_semantic.sql: 3.4 ms of binding and 1.5 ms of optimizers per search,
~10 ms of P50 at 100k documents with the semantic side on); fuse.sql was written that way from the
start. A value needed twice is carried as a column of an earlier CTE instead."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb
import pytest
from homes import BuiltHome

from warehouse.core import embed, sqlfiles
from warehouse.search import service
from warehouse.search.request import search_request

QUERIES = sqlfiles.query_files()


def _code(f: Path) -> str:
    return "\n".join(re.sub(r"--.*", "", ln) for ln in f.read_text(encoding="utf-8").splitlines())


def _prepared() -> list[tuple[str, str, str]]:
    """(file, statement, body) of every PREPARE in the query files, and actors.sql (prepared from
    search/session.py as akw_actors)."""
    out = [("actors.sql", "akw_actors", _code(QUERIES["actors"]))]
    for f in QUERIES.values():
        code = _code(f)
        for m in re.finditer(r"PREPARE\s+(\w+)\s+AS\s+(.*?)(?=;|\Z|PREPARE\s)", code, flags=re.S | re.I):
            out.append((f.name, m.group(1), m.group(2)))
    return out


def test_the_session_prepares_the_fusion_statements() -> None:
    names = {name for _, name, _ in _prepared()}
    assert {"akw_fuse", "akw_fuse_sem", "akw_slots", "akw_actors"} <= names, names


@pytest.mark.parametrize("file,name,body", _prepared(), ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_each_parameter_is_named_once(file: str, name: str, body: str) -> None:
    twice = {p: n for p, n in Counter(re.findall(r"\$\d+", body)).items() if n > 1}
    assert twice == {}, f"{file} {name}: {twice}"


# -- measured: the session's statements are planned once, not on every EXECUTE ----------------------

class _Recorder:
    """The session cursor, recording each EXECUTE fusion sends (a spy: every call still runs)."""

    def __init__(self, cur: duckdb.DuckDBPyConnection, seen: dict[str, str]) -> None:
        self._cur, self._seen = cur, seen

    def execute(self, sql: str, *args: object) -> duckdb.DuckDBPyConnection:
        if sql.startswith("EXECUTE "):
            self._seen[sql.split()[1].split("(")[0]] = sql
        return self._cur.execute(sql, *args)

    def __getattr__(self, name: str) -> object:
        return getattr(self._cur, name)


def _arguments(call: str) -> list[str]:
    """The arguments of `EXECUTE name(a, [b, c]::T[], …)`, split at top-level commas."""
    inner = call[call.index("(") + 1:call.rindex(")")] if "(" in call else ""
    out, depth, cur = [], 0, ""
    for ch in inner:
        depth += 1 if ch in "([" else -1 if ch in ")]" else 0
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*out, cur.strip()] if cur.strip() else out


def _optimizer_ms(cur: duckdb.DuckDBPyConnection, sql: str, out: Path) -> float:
    """What DuckDB's optimizers took for one run of `sql` (profiling_mode detailed)."""
    cur.execute("PRAGMA enable_profiling='json'")
    cur.execute("PRAGMA profiling_mode='detailed'")
    cur.execute(f"PRAGMA profiling_output='{out}'")
    try:
        cur.execute(sql).fetchall()
    finally:
        cur.execute("PRAGMA disable_profiling")
    return json.loads(out.read_text(encoding="utf-8"))["all_optimizers"] * 1000


def _session_calls(built: BuiltHome, home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, dict]:
    wh = built.copy(home)  # a private copy of the shared small home (semantic lane on or off)
    seen: dict[str, str] = {}
    real = service.fuse
    monkeypatch.setattr(service, "fuse", lambda sess, *a, **k: real(_Recorder(sess, seen), *a, **k))
    resp = wh.search(search_request("who restored mysql root access on the database server", limit=10))
    assert resp["found"], resp
    return wh.engine._local.sess, seen


@pytest.mark.parametrize("semantic", [False, True], ids=["semantic-off", "semantic-on"])
def test_fusion_slots_and_actors_are_not_planned_again_on_execute(
        semantic: bool, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A statement prepared before the session's catalog changed (a temp table created after it) is
    planned again on every EXECUTE: the semantic session's `_vec` table made slots and actors cost
    3.3 and 5.4 ms at 100k (1.3 and 2.2 without). Each EXECUTE's optimizer time must stay a small
    share of what planning the same statement from its text takes."""
    if semantic and not embed.installed():
        pytest.skip("the [semantic] extra is not installed")
    built = request.getfixturevalue("small_on" if semantic else "small")
    sess, seen = _session_calls(built, tmp_path / "akw", monkeypatch)
    fusion = "akw_fuse_sem" if semantic else "akw_fuse"
    assert {fusion, "akw_slots", "akw_actors"} <= set(seen), seen
    bodies = {name: body for _, name, body in _prepared()}
    for name in (fusion, "akw_slots", "akw_actors"):
        body = re.sub(r"^\s*INSERT INTO _fused\s*", "", bodies[name])
        for i, arg in enumerate(_arguments(seen[name]), 1):
            body = body.replace(f"${i}::", f"({arg})::", 1)
        assert "$" not in body, (name, body)
        planned = min(_optimizer_ms(sess, body, tmp_path / "p.json") for _ in range(3))
        executed = min(_optimizer_ms(sess, ("DELETE FROM _fused; " if name == fusion else "") + seen[name],
                                     tmp_path / "p.json") for _ in range(3))
        assert executed < 0.3 * planned, f"{name}: EXECUTE optimizers {executed:.3f} ms, planning {planned:.3f} ms"
