"""Issue 25: every surface that takes or returns an id answers for another principal's item exactly as
for an id that does not exist (cards of every kind, feedback, forget, sources, status), and the
whole-home operations (reindex, forget all, index delete, scheduled runs, report, quality) are an
admin principal's (`access.admins`). Each check failed on the main of before: `get code` returned
another's chunk, `forget` deleted another's session, `feedback` recorded a vote on another's episode,
`sources` listed another's sessions and `report` named another's actors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from access_homes import as_, build, principals
from cli_run import akw_json
from homes import BuiltHome, env_of

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Settings
from warehouse.home import generation
from warehouse.home.feedback import read_all
from warehouse.search.access import View, view_on

ALICE, BOB, ADMIN = "alice@example.com", "bob@example.com", "root@example.com"


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A private copy of the shared home with access on in its config (for the CLI) and an admin."""
    _, w = build(home24, tmp_path_factory.mktemp("access-ids"))
    Settings.load(w.paths.config_file, env={}).with_value("access.enabled", "true") \
        .with_value("access.principals", json.dumps(principals(w))) \
        .with_value("access.admins", json.dumps([ADMIN])).save(w.paths.config_file)
    return w


def me(wh: Warehouse, who: str) -> Warehouse:
    return as_(wh, who, admins=json.dumps([ADMIN]))


_VIEWS: dict[tuple[Path, str, str], View] = {}


def view(wh: Warehouse, who: str) -> View:
    """What `who` sees of the published generation (read once per generation)."""
    scope = me(wh, who)._scope()
    assert scope is not None
    key = (wh.paths.home, who, wh.status()["index_rev"])
    if key not in _VIEWS:
        con, _gen = generation.open_current(wh.paths.generations)
        try:
            _VIEWS[key] = view_on(con, scope)
        finally:
            con.close()
    return _VIEWS[key]


def all_ids(wh: Warehouse, sql: str) -> set[str]:
    return {r[0] for r in wh.sql(sql, limit=100_000)["rows"] if r[0]}


def others(wh: Warehouse, who: str, kind: str) -> list[str]:
    """Up to 20 ids of `kind` the principal does not see (and only those)."""
    v = view(wh, who)
    every = {"code": (all_ids(wh, "SELECT doc_key FROM ak_document WHERE lane = 'code'"), v.chunks),
             "episode": (all_ids(wh, "SELECT episode_id FROM ak_episode"), v.episodes),
             "session": (all_ids(wh, "SELECT session_id FROM ak_episode"), v.sessions),
             "actor": (all_ids(wh, "SELECT actor_id FROM ak_actor WHERE episodes > 0"), v.actors)}[kind]
    hidden = sorted(every[0] - every[1])
    assert hidden, f"{who} sees every {kind}: the check below could not fail"
    return hidden[:20]


def refused(call: Any) -> KnowledgeError:
    with pytest.raises(KnowledgeError) as e:
        call()
    return e.value


def same_as_unknown(hidden: KnowledgeError, unknown: KnowledgeError, hidden_id: str, unknown_id: str) -> None:
    """Not found, worded exactly as for an id the index does not hold (only the id itself differs)."""
    assert hidden.code == unknown.code == Code.NOT_FOUND.value
    assert hidden.message.replace(hidden_id, "ID") == unknown.message.replace(unknown_id, "ID")
    assert set(hidden.to_dict()) == set(unknown.to_dict())


@pytest.mark.parametrize("who", [ALICE, BOB])
def test_a_code_card_of_anothers_workspace_is_unknown(wh: Warehouse, who: str) -> None:
    w = me(wh, who)
    unknown = refused(lambda: w.get("code", "chunk:does-not-exist"))
    hidden = others(wh, who, "code")
    for chunk in hidden:
        same_as_unknown(refused(lambda c=chunk: w.get("code", c)), unknown, chunk, "chunk:does-not-exist")
    assert all(wh.get("code", c)["id"] == c for c in hidden[:3])  # access off: the same cards open
    chunks = view(wh, who).chunks
    mine = sorted(chunks)[0]
    card = w.get("code", mine)
    assert card["id"] == mine and all(n["id"] in chunks for n in card["neighbours"])


def test_feedback_on_anothers_item_is_unknown_and_records_nothing(wh: Warehouse) -> None:
    alice = me(wh, ALICE)
    before = len(read_all(wh.paths))
    unknown = refused(lambda: alice.feedback("episode:does-not-exist", True))
    for ep in others(wh, ALICE, "episode")[:5]:
        same_as_unknown(refused(lambda e=ep: alice.feedback(e, True)), unknown, ep, "episode:does-not-exist")
    actor = others(wh, ALICE, "actor")[0]
    mine = sorted(view(wh, ALICE).episodes)[0]
    assert refused(lambda: alice.feedback(mine, True, chosen=actor)).code == Code.NOT_FOUND.value
    assert len(read_all(wh.paths)) == before, "nothing recorded"
    assert alice.feedback(mine, True)["recorded"] is True  # its own item: recorded
    env = env_of(wh, AKW_PRINCIPAL=ALICE)
    code, doc = akw_json("feedback", others(wh, ALICE, "episode")[0], "--useful", env=env)
    assert code != 0 and doc["errors"][0]["code"] == Code.NOT_FOUND.value


def test_forget_of_anothers_session_is_unknown_and_removes_nothing(wh: Warehouse) -> None:
    alice = me(wh, ALICE)
    unknown = refused(lambda: alice.forget("session", "session-does-not-exist"))
    session = others(wh, ALICE, "session")[0]
    for confirm in (False, True):
        hidden = refused(lambda c=confirm: alice.forget("session", session, confirm=c))
        assert hidden.code == unknown.code == Code.NOT_FOUND.value and hidden.message == unknown.message
    assert session in all_ids(wh, "SELECT session_id FROM ak_episode"), "still indexed"
    env = env_of(wh, AKW_PRINCIPAL=ALICE)
    code, doc = akw_json("forget", "session", session, "--yes", env=env)
    assert code != 0 and doc["errors"][0]["code"] == Code.NOT_FOUND.value
    actor = others(wh, ALICE, "actor")[0]
    assert refused(lambda: alice.forget("actor", actor)).code == Code.NOT_FOUND.value
    own = sorted(view(wh, ALICE).sessions)[0]
    assert alice.forget("session", own)["would_remove"]["sessions"] >= 1  # a dry run of its own: counted


def test_sources_and_status_name_only_the_principals_units(wh: Warehouse) -> None:
    off = wh.sources()
    for who in (ALICE, BOB):
        v = view(wh, who)
        mine = me(wh, who).sources()
        sessions = {u["unit"].removeprefix("session:") for u in mine["units"] if u["source"] == "dsh"}
        assert sessions and sessions <= set(v.sessions)
        hidden = set(others(wh, who, "session"))
        assert not hidden & sessions and not any(s in json.dumps(mine) for s in hidden)
        assert 0 < sum(s["units"] for s in mine["sources"].values()) < sum(s["units"] for s in off["sources"].values())
        assert "errors" in me(wh, who).status()
    every = me(wh, ADMIN).sources()  # an admin is told of every unit
    assert len(every["units"]) == len(off["units"])


def test_whole_home_operations_are_an_admins(wh: Warehouse, tmp_path: Path) -> None:
    alice = me(wh, ALICE)
    rev = wh.status()["index_rev"]
    calls = {"reindex": lambda: alice.reindex(), "forget all": lambda: alice.forget("all", confirm=True),
             "index delete": lambda: alice.delete_index(confirm=True),
             "report": lambda: alice.report(tmp_path / "r"), "quality": lambda: alice.quality(tmp_path / "q"),
             "schedule run-due": lambda: alice.schedule_run_due(),
             "disable --delete-index": lambda: alice.disable(keep_index=False)}
    for name, call in calls.items():
        e = refused(call)
        assert e.code == Code.ACCESS_DENIED.value and "access.admins" in e.message, name
    assert wh.status()["index_rev"] == rev and Settings.load(wh.paths.config_file, env={}).enabled
    assert not (tmp_path / "r").exists()
    env = env_of(wh, AKW_PRINCIPAL=ALICE)
    code, doc = akw_json("report", "--out", str(tmp_path / "r"), env=env)
    assert code != 0 and doc["errors"][0]["code"] == Code.ACCESS_DENIED.value
    nobody = Warehouse(wh.paths, Settings.load(wh.paths.config_file, env={}))  # access on, no principal
    assert refused(lambda: nobody.reindex()).code == Code.NO_PRINCIPAL.value
    admin = me(wh, ADMIN)
    assert admin.reindex()["outcome"] in ("noop", "published")
    assert admin.forget("all")["would_remove"]["sessions"] > 0  # a dry run: counted, nothing removed
