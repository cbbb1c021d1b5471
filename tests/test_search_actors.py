"""Who reads well: actors found by what they are, named by what they are, every id a mart row.

One generated home (24 sessions, seed 7); the truth is the generator's manifest (agent and role
names) and the published generation's marts, never the system's own answer.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from homes import BuiltHome, q

from warehouse.api import Warehouse
from warehouse.evaluation.golden import load_golden
from warehouse.evaluation.runner import DEFAULT_GOLDEN
from warehouse.home import generation
from warehouse.search import fusion
from warehouse.search.contract import SearchResponse, invariant_violations
from warehouse.search.messages import msg


@pytest.fixture(scope="module")
def gen(home24: BuiltHome) -> tuple[Path, dict[str, Any]]:
    return home24.src, home24.manifest


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("actors-home"))


def rows(wh: Warehouse, sql: str) -> list[tuple]:
    """Rows of the published generation, read beside the search engine (same DuckDB configuration)."""
    con, _ = generation.open_current(wh.paths.generations)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _named(manifest: dict[str, Any], name: str) -> set[str]:
    return {a["actor_id"] for a in manifest["actors"] if a["name"] == name}


@pytest.mark.parametrize(("query", "name"), [
    ("an agent that reviews database migrations", "DB Guardian"),
    ("агент, который следит за базами данных", "DB Guardian"),
    ("a subagent that inspects a server without changing it, its open ports and running services",
     "server-auditor"),
    ("a teammate who checks changes for regressions", "qa-engineer"),
])
def test_an_agent_is_found_by_what_it_is(wh: Warehouse, gen: tuple[Path, dict[str, Any]], query: str,
                                         name: str) -> None:
    d = q(wh, query)
    assert d["actors"], query
    top = d["actors"][0]
    assert top["actor_id"] in _named(gen[1], name), [a["name"] for a in d["actors"]]
    assert invariant_violations(_model(d)) == []  # KC-7: its evidence is among the returned items
    items = {it["id"]: it for it in d["lanes"]["episodes"]["items"]}
    assert top["evidence"] and all(items[e["id"]]["actor"]["id"] == top["actor_id"] for e in top["evidence"])


def test_a_profile_does_not_answer_who_did_a_task(wh: Warehouse) -> None:
    """"who moved iya.ru" is about work done: a profile that merely says "migrations" nominates nothing."""
    d = q(wh, "кто переносил iya.ru на другой хостинг?")
    profile = msg("item.profile", "ru")  # the why-texts speak the query's language
    assert d["actors"] and all(it["why"][0] != profile for it in d["lanes"]["episodes"]["items"])


def test_profiles_step_aside_for_episode_filters(wh: Warehouse) -> None:
    d = q(wh, "an agent that reviews database migrations", filters={"outcome": "success"})
    profile = msg("item.profile", "en")
    assert all(it["why"][0] != profile and it["session"]["outcome"] == "success"
               for it in d["lanes"]["episodes"]["items"])


def _model(d: dict[str, Any]) -> SearchResponse:
    return SearchResponse.model_validate(d)


def test_names_say_what_the_actor_is(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    ws_names = {w["id"]: Path(w["path"]).name for w in gen[1]["workspaces"]}
    actors = rows(wh, "SELECT actor_id, kind, display_name, context, workspace_id, description FROM ak_actor")
    titles = dict(rows(wh, "SELECT session_id, coalesce(title, proj_title) FROM stg_dsh_sessions"))
    by_id = {a["actor_id"]: a for a in gen[1]["actors"]}
    for actor_id, kind, name, context, ws, description in actors:
        assert not name.startswith("session:"), name
        if kind == "root_session":  # preset · workspace · its task · its day (issue 24: tell them apart)
            title = titles[by_id[actor_id]["session_id"]]
            m = re.fullmatch(r"[a-z]+ agent · " + re.escape(ws_names[ws]) + r" · (.+) · 2026-\d\d-\d\d( \d\d:\d\d)?",
                             name)
            assert m and title.startswith(m.group(1).removesuffix("…")), name
            assert context == title
        elif kind in ("subagent", "team_member"):
            assert name == f"{by_id[actor_id]['name']} · {ws_names[ws]}"
            assert description, actor_id  # the team's or the parent's catalogue says what the role is for
        else:
            assert name == by_id[actor_id]["name"] and context is None


def test_root_session_actors_are_told_apart_by_name(wh: Warehouse) -> None:
    names = [n for (n,) in rows(wh, "SELECT display_name FROM ak_actor WHERE kind = 'root_session'")]
    assert len(names) >= 10 and len(set(names)) == len(names)


def test_episode_items_name_their_actor(wh: Warehouse) -> None:
    names = dict(rows(wh, "SELECT actor_id, display_name FROM ak_actor"))
    d = q(wh, "кто чинил доступ к MySQL на 176.99.5.35")
    items = d["lanes"]["episodes"]["items"]
    assert items
    for it in items:
        if it["id"].startswith("memory:"):
            continue
        assert it["actor"]["name"] == names[it["actor"]["id"]], it["id"]
    assert all(a.get("context") or a["kind"] == "autoclaw_agent" for a in d["actors"])


def test_indexed_texts_are_words_not_json(wh: Warehouse) -> None:
    """File lists of deliverables/changes and AutoClaw tool inputs are rendered from their JSON."""
    leaked = rows(wh, "SELECT doc_key, left(text, 80) FROM ak_document WHERE kind IN ('artifact', 'tool_call') "
                      "AND (text LIKE '%[{\"%' OR text LIKE '%{\"path\"%' OR text LIKE '%{\"command\"%' "
                      "OR text LIKE '%\"description\":%')")
    assert leaked == []
    changes = rows(wh, "SELECT text FROM ak_document WHERE kind = 'artifact' AND event_type = 'workspace/changes'")
    assert changes and all(re.search(r"\((added|modified|deleted)\)", t) for (t,) in changes)


def test_every_id_in_a_response_is_its_mart_row(wh: Warehouse) -> None:
    """Actor, episode, event, memory, chunk and skill ids of the golden queries' answers: each names exactly
    one row of its mart (one SELECT per kind of id)."""
    ids: dict[str, set[str]] = {k: set() for k in ("actor", "episode", "event", "memory", "chunk", "skill")}
    for g in load_golden(DEFAULT_GOLDEN).queries:
        if g.slice != "synthetic":
            continue
        d = q(wh, g.text, mode=g.mode)
        for a in d["actors"]:
            ids["actor"].add(a["actor_id"])
            ids["episode"].update(e["id"] for e in a["evidence"])
        for it in d["lanes"]["episodes"]["items"]:
            ids["memory" if it["id"].startswith("memory:") else "episode"].add(it["id"])
            if it.get("event_id"):
                ids["event"].add(it["event_id"])
            if it.get("actor"):
                ids["actor"].add(it["actor"]["id"])
        ids["chunk"].update(it["id"] for it in d["lanes"]["code"]["items"])
        for it in d["lanes"]["skills"]["items"]:
            ids["skill"].add(it["id"])
            for u in it["used_by"]:
                ids["actor"].add(u["actor_id"])
                if u.get("episode_id"):
                    ids["episode"].add(u["episode_id"])
    marts = {"actor": ("ak_actor", "actor_id"), "episode": ("ak_episode", "episode_id"),
             "event": ("ak_event", "event_id"), "memory": ("ak_memory", "memory_key"),
             "chunk": ("ak_document", "doc_key"), "skill": ("ak_skill", "skill_id")}
    assert all(ids[k] for k in ("actor", "episode", "event", "chunk", "skill")), {k: len(v) for k, v in ids.items()}
    for kind, (table, col) in marts.items():
        if not ids[kind]:
            continue
        listed = ", ".join("'" + i.replace("'", "''") + "'" for i in sorted(ids[kind]))
        found = dict(rows(wh, f"SELECT {col}, count(*) FROM {table} WHERE {col} IN ({listed}) GROUP BY {col}"))
        assert found == dict.fromkeys(ids[kind], 1), (kind, sorted(ids[kind] - set(found))[:3])


def test_nominated_episodes_score_against_each_lane_best() -> None:
    """The best profile's episode outranks the best episode hit; an episode already hit keeps one
    hit with the higher score and both term sets; profiles beyond the top three nominate nothing."""
    hits = [("episodes", 10, 8.0, ["a"]), ("episodes", 11, 4.0, ["b"]), ("code", 5, 9.0, ["a"]),
            ("actors", 100, 2.0, ["x"]), ("actors", 101, 1.0, ["y"]), ("actors", 102, 0.5, ["z"]),
            ("actors", 103, 0.4, ["w"])]
    profiles = {100: 20, 101: 11, 102: 21, 103: 22}
    out, nominated = fusion.nominate(hits, profiles)
    by_doc = {(lane, d): (score, terms) for lane, d, score, terms in out}
    assert all(lane != "actors" for lane, *_ in out) and nominated == {20, 21}
    assert by_doc[("episodes", 20)] == (8.0 * fusion.NOMINATION, ["x"]) and fusion.NOMINATION > 1
    assert by_doc[("episodes", 11)] == (max(4.0, 1.0 / 2.0 * 8.0 * fusion.NOMINATION), ["b", "y"])
    assert by_doc[("episodes", 21)][0] == 0.5 / 2.0 * 8.0 * fusion.NOMINATION
    assert ("episodes", 22) not in by_doc and by_doc[("code", 5)] == (9.0, ["a"])
    assert fusion.nominate(hits[:3], profiles) == (hits[:3], set())
