"""Issue 16 KC-10 strengthened: two principals with overlapping and disjoint workspaces see nothing of
each other's — items, actors, evidence, counts, snippets, cards, dispatch — and the hidden hint
names a system and a principal only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from access_homes import MODES, QUERIES, as_, build, leaks, markers
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError

WHO = ("alice@example.com", "bob@example.com", "carol@example.com")


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return build(home24, tmp_path_factory.mktemp("access"))[1]


@pytest.fixture(scope="module")
def marks(wh: Warehouse) -> dict[str, set[str]]:
    return {who: markers(wh, who) for who in WHO}


def q(w: Warehouse, query: str, **kw: Any) -> dict[str, Any]:
    return w.search({"schema": "knowledge.search/v1", "query": query, **kw})


def _ids(resp: dict[str, Any]) -> list[tuple[str, str]]:
    out = [("episode", i["id"]) for i in resp["lanes"]["episodes"]["items"]]
    out += [("code", i["id"]) for i in resp["lanes"]["code"]["items"]]
    out += [("skill", i["name"]) for i in (resp["lanes"].get("skills") or {}).get("items", [])]
    return out + [("agent", a["actor_id"]) for a in resp["actors"]]


def test_markers_are_real(wh: Warehouse, marks: dict[str, set[str]]) -> None:
    """The scan below could fail: with access off every principal's markers show up in responses."""
    for who in WHO:
        assert len(marks[who]) > 10, who
        seen = set()
        for query in QUERIES:
            seen |= set(leaks(q(wh, query), marks[who]))
        assert seen, f"access off shows {who}'s markers"


@pytest.mark.parametrize("who", WHO)
def test_no_cross_leak_in_search_cards_and_dispatch(wh: Warehouse, marks: dict[str, set[str]], who: str) -> None:
    me = as_(wh, who)
    found: set[tuple[str, str]] = set()
    for query in QUERIES:
        for mode in MODES:
            resp = q(me, query, mode=mode, trace=True)
            assert leaks(resp, marks[who]) == [], (query, mode)
            found.update(_ids(resp))
    opened = 0
    for kind, ident in sorted(found):  # each id once: a card is the same whichever query named it
        try:
            card = me.get(kind, ident)
        except KnowledgeError as e:
            assert e.code == Code.NOT_FOUND.value  # a card drawing on others' work is not shown
            continue
        opened += 1
        assert leaks(card, marks[who]) == [], (kind, ident)
    assert opened > 5, "some cards of the principal's own work open"
    task = {"title": "Restore MySQL root access",
            "text": "root gets ERROR 1045; restore access with mysql-access-restore"}
    plan = me.dispatch({"schema": "knowledge.dispatch/v1", "task": task, "target": "auto", "dry_run": True})
    echoed = {m for m in marks[who] if m in json.dumps(task)}  # the caller's own task text, echoed back
    assert leaks(plan, marks[who] - echoed) == []
    assert set(leaks(plan, marks[who])) <= echoed


def test_counts_are_the_principals_own(wh: Warehouse) -> None:
    off = q(wh, "nginx config")["lanes"]["episodes"]["counts"]["indexed_docs"]
    mine = {who: q(as_(wh, who), "nginx config")["lanes"]["episodes"]["counts"]["indexed_docs"] for who in WHO}
    assert all(0 < n < off for n in mine.values()) and len(set(mine.values())) == 3


def test_overlap_is_seen_by_both_and_disjoint_by_one(wh: Warehouse) -> None:
    def sessions(w: Warehouse, query: str) -> set[str]:
        return {i["session"]["workspace"] for i in q(w, query, limit=50)["lanes"]["episodes"]["items"]}

    alice = sessions(as_(wh, "alice@example.com"), "api.shop-example.com orders")
    bob = sessions(as_(wh, "bob@example.com"), "api.shop-example.com orders")
    assert "shop-api-afd64283" in alice and "shop-api-afd64283" in bob
    assert not any(w.startswith("infra-ops") for w in alice) and not any(w.startswith("iya-site") for w in bob)
    carol = sessions(as_(wh, "carol@example.com"), "api.shop-example.com orders")
    assert carol <= {"text-tools-42601b91"}


def test_cards_of_others_work_are_not_found_worded_as_unknown(wh: Warehouse) -> None:
    off = q(wh, "restore MySQL access on 176.99.5.35", mode="find_agent")
    bob_actor = next(a["actor_id"] for a in off["actors"] if "06ce007478a04775" in a["actor_id"]
                     or "infra" in json.dumps(a))
    alice = as_(wh, "alice@example.com")
    with pytest.raises(KnowledgeError) as hidden:
        alice.get("agent", bob_actor)
    with pytest.raises(KnowledgeError) as unknown:
        alice.get("agent", "actor:harness:root:session-does-not-exist")
    assert hidden.value.code == unknown.value.code == Code.NOT_FOUND.value
    assert hidden.value.message == unknown.value.message
    assert wh.get("agent", bob_actor)["actor_id"] == bob_actor  # access off: the same card opens


def test_a_filter_naming_anothers_workspace_is_an_unknown_name(wh: Warehouse) -> None:
    resp = q(as_(wh, "carol@example.com"), "nginx config", filters={"workspaces": ["infra-ops"]})
    assert all(not lane["items"] for lane in resp["lanes"].values() if lane)
    warn = [w["message"] for w in resp["warnings"] if w["code"] == Code.UNKNOWN_WORKSPACE.value]
    assert warn and "text-tools" in warn[0], "told it names no workspace of its own, and which ones it has"
    assert not any(name in warn[0] for name in ("shop-api", "iya-site", "tg-bot"))
    off = q(wh, "nginx config", filters={"workspaces": ["infra-ops"]})
    assert not any(w["code"] == Code.UNKNOWN_WORKSPACE.value for w in off["warnings"])


def test_hidden_hint_is_present_and_content_free(wh: Warehouse, marks: dict[str, set[str]]) -> None:
    resp = q(as_(wh, "alice@example.com"), "restore MySQL access on 176.99.5.35")
    hint = resp.get("hidden")
    assert hint, "bob's infra-ops work answers this query: alice is told something exists"
    for h in hint:
        assert set(h) <= {"system", "author_principal"}
        assert h["system"] in ("harness", "autoclaw", "skills", "code")
        assert h.get("author_principal") in (None, "bob@example.com", "carol@example.com")
    assert any(h.get("author_principal") == "bob@example.com" for h in hint)
    assert len(hint) == len({json.dumps(h, sort_keys=True) for h in hint}), "one entry per system and author"
    assert leaks(hint, marks["alice@example.com"]) == []
    assert "hidden" not in q(wh, "restore MySQL access on 176.99.5.35"), "access off: no hint field at all"
    off = q(as_(wh, "alice@example.com", hidden_hints="false"), "restore MySQL access on 176.99.5.35")
    assert "hidden" not in off


def test_nothing_reveals_how_many_were_removed(wh: Warehouse) -> None:
    """The same principal gets the same response whether or not others' documents exist: compared with
    a principal holding the union of rights, limits/truncation mention only its own items."""
    resp = q(as_(wh, "carol@example.com"), "restore MySQL access on 176.99.5.35", trace=True)
    lim = resp["limits"]
    assert lim["returned"] == sum(len(v["items"]) for v in resp["lanes"].values() if v)
    text = json.dumps({k: v for k, v in resp.items() if k != "hidden"})
    assert "hidden" not in text and "removed" not in text and "filtered" not in text


def test_status_still_answers_and_sql_is_refused(wh: Warehouse) -> None:
    alice = as_(wh, "alice@example.com")
    assert alice.status()["state"]
    with pytest.raises(KnowledgeError) as e:
        alice.sql("SELECT count(*) FROM ak_document")
    assert e.value.code == Code.ACCESS_DENIED.value


def test_dispatch_records_are_the_principals_own(wh: Warehouse, tmp_path: Path) -> None:
    alice, bob = as_(wh, "alice@example.com"), as_(wh, "bob@example.com")
    req = {"schema": "knowledge.dispatch/v1", "dispatch_id": "access-alice-1",
           "task": {"title": "Deploy iya.ru", "text": "deploy the iya.ru site with deploy-iya-ru"},
           "target": "auto", "dry_run": False, "commit": True, "confirm": True}
    done = alice.dispatch(req)
    if done.get("assignment") is None:
        pytest.skip("no fitting actor for alice's task in this data")
    assert done["assignment"]["requested_by"] == "principal:alice@example.com"
    assert [a["dispatch_id"] for a in alice.dispatch_list()["assignments"]] == ["access-alice-1"]
    assert bob.dispatch_list()["assignments"] == []
    with pytest.raises(KnowledgeError) as e:
        bob.dispatch_show("access-alice-1")
    assert e.value.code == Code.NOT_FOUND.value
