"""Issue 16 access control at speed: what the cost cuts must not change.

The principal's view is made once per cursor and rights (callers that differ only in the hint or
live-check switches share it); the pre-filter's bitstring and the hint's per-right bitstrings agree
with the ACL table for every document; an AutoClaw database is not re-read by every response (a
read-only open touches its side files' ctime); and a hint computed on the worker cursor equals the
one computed on the search cursor."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from access_homes import as_, build
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.extract import live
from warehouse.search import lane_runner
from warehouse.search.contract import parse_request
from warehouse.search.request import search_request

QUERY = "restore MySQL access on 176.99.5.35"


@pytest.fixture(scope="module")
def built(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Warehouse]:
    return build(home24, tmp_path_factory.mktemp("perf"))


def _alice_view(wh: Warehouse) -> tuple[Any, Any, Any, Any]:
    """(alice's engine, its search cursor, the open generation, alice's view on that cursor)."""
    alice = as_(wh, "alice@example.com")
    engine = alice.engine
    cur, gen = engine._connection()
    return engine, cur, gen, engine.view(cur, alice._scope())


def test_one_view_for_callers_that_differ_only_in_switches(built: tuple[Path, Warehouse]) -> None:
    _, wh = built
    on = as_(wh, "alice@example.com")
    bare = Warehouse(wh.paths, on.settings.with_value("access.hidden_hints", "false")
                     .with_value("access.live_check", "false"), principal="alice@example.com")
    bare._engine = on.engine
    first = on.search(search_request(QUERY, limit=5))
    views = on.engine._local.views
    made = {k: id(v) for k, v in views.items()}
    for _ in range(3):
        assert "hidden" not in bare.search(search_request(QUERY, limit=5))
        again = on.search(search_request(QUERY, limit=5))
    assert {k: id(v) for k, v in views.items()} == made and len(made) == 1, "not re-made on alternation"
    assert again.get("hidden") == first.get("hidden") and first.get("hidden")


def test_bitstrings_agree_with_the_acl_table(built: tuple[Path, Warehouse]) -> None:
    _, wh = built
    _, cur, _, view = _alice_view(wh)

    def ids(sql: str) -> set[int]:
        return {int(r[0]) for r in cur.execute(sql).fetchall()}

    allowed = ids(f"SELECT doc_id FROM {view.table}")
    probed = ids(f"SELECT d.doc_id FROM ak_document AS d WHERE {view.allow_clause()}")
    hidden = ids(f"SELECT d.doc_id FROM ak_document AS d WHERE {view.hidden_clause()}")
    every = ids("SELECT doc_id FROM ak_document")
    assert probed == allowed and hidden == every - allowed and allowed and hidden
    acl: dict[int, set[tuple[str, str, str]]] = {}
    for d, *right in cur.execute("SELECT doc_id, source, grant_kind, grant_key FROM ak_acl_document").fetchall():
        acl.setdefault(int(d), set()).add(tuple(right))
    assert all(set(view.rights_of([d])) == acl.get(d, set()) for d in every)
    some = sorted(hidden)[:7]
    assert set(view.rights_of(some)) == set().union(*(acl.get(d, set()) for d in some))


def test_hint_on_the_worker_cursor_equals_the_search_cursor(built: tuple[Path, Warehouse]) -> None:
    _, wh = built
    engine, cur, gen, view = _alice_view(wh)
    req = parse_request(search_request(QUERY, limit=10))
    from warehouse.search import lexical

    found = lexical.analyze(cur, QUERY)[1]
    lanes = lane_runner.run_lanes(cur, req, found, engine._lane_info, engine.settings, engine._watchdog,
                                  engine._workspaces.resolve([]), view.bits)
    args = (req, found, engine._watchdog, engine._workspaces.resolve([]), view.hidden_clause(), lanes)
    here = lane_runner.hidden_hits(cur, *args)
    there = engine._side_worker.start(engine._local.con, gen.path, view,
                                      lambda c: lane_runner.hidden_hits(c, *args)).result(timeout=30)
    assert here == there and here, "the worker cursor holds the same bitstring"


def test_an_account_database_is_not_reread_by_every_response(built: tuple[Path, Warehouse],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    src, _ = built
    account = next((src / "autoclaw" / "accounts").iterdir()).name
    db = src / "autoclaw" / "accounts" / account / "runtime" / "runtime.sqlite"
    session = live._account_sessions(db)
    assert session, "the generated account has sessions"
    sid = next(iter(session))
    reads: list[Path] = []
    real = live._account_sessions
    monkeypatch.setattr(live, "_account_sessions", lambda p: reads.append(p) or real(p))
    live._memo.clear()
    for _ in range(4):  # one LiveSources per response, as guard.trim makes them
        live.LiveSources(src / "dsh", src / "autoclaw").autoclaw_session_live(account, sid)
    assert len(reads) == 1, "read once, then answered from the stat-keyed memo"
    st = db.stat()
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # as a writer's commit would
    live.LiveSources(src / "dsh", src / "autoclaw").autoclaw_session_live(account, sid)
    assert len(reads) == 2, "a changed file (mtime) is read again"
