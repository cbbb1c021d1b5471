"""Saved AutoClaw agents own the runs their sessions name: by id, by preset URI name, by label, by participation.

One hand-made AutoClaw account (the generator's schema, real SQLite) holds a session per case,
including the ones where two rules disagree, an ambiguous name and a session nobody owns; it is
extracted and modelled by a real reindex, and ak_episode says who owns each run and by which rule.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from akw_fixtures import autoclaw_schema

from warehouse.api import Warehouse

ACCOUNT = "acc"
AGENTS = (  # agent_id, name, updated_at
    ("agt_ops", "Ops SRE", "2026-09-01T00:00:00.000Z"),
    ("agt_db", "DB Guardian", "2026-09-01T00:00:00.000Z"),
    ("agt_qa_old", "QA Runner", "2026-09-01T00:00:00.000Z"),
    ("agt_qa_new", " qa runner ", "2026-09-05T00:00:00.000Z"),  # same name, updated later: it owns
)
# session -> (capability_composition_json, participations [(agent_id, created_at)], expected owner, rule)
CASES: dict[str, tuple[dict[str, Any], list[tuple[str, str]], str | None, str | None]] = {
    "s_id": ({"presetRef": "agt_ops", "label": "DB Guardian"}, [], "agt_ops", "id"),  # id beats label
    "s_uri_id": ({"presetRef": "preset://autoclaw/agt_db"}, [], "agt_db", "id"),
    "s_name": ({"presetRef": "preset://autoclaw/db%20guardian", "label": "Ops SRE"}, [], "agt_db", "name"),
    "s_label": ({"label": "  ops sre "}, [], "agt_ops", "label"),
    "s_ambiguous": ({"label": "QA Runner"}, [], "agt_qa_new", "label"),
    "s_part": ({}, [("agt_db", "2026-09-02T10:00:05.000Z"), ("agt_ops", "2026-09-02T10:00:01.000Z")],
               "agt_ops", "participation"),  # the earliest participation
    "s_id_vs_part": ({"presetRef": "agt_db"}, [("agt_ops", "2026-09-02T09:00:00.000Z")], "agt_db", "id"),
    "s_unknown_preset": ({"presetRef": "preset://autoclaw/standard", "label": "Standard"}, [], None, None),
    "s_ghost_part": ({}, [("agt_deleted", "2026-09-02T10:00:00.000Z")], None, None),  # not a saved agent
}


def _account(root: Path) -> None:
    db = root / "accounts" / ACCOUNT / "runtime" / "runtime.sqlite"
    db.parent.mkdir(parents=True)
    con = sqlite3.connect(db, isolation_level=None)
    autoclaw_schema.create(con)
    for aid, name, updated in AGENTS:
        con.execute("INSERT INTO agents (agent_id, name, description, instructions, model, created_at, updated_at) "
                    "VALUES (?,?,?,?,?,?,?)", (aid, name, f"{name} agent", "be careful", "glm-4.6",
                                               "2026-09-01T00:00:00.000Z", updated))
    for n, (sid, (comp, parts, _, _)) in enumerate(CASES.items()):
        t = f"2026-09-02T10:{n:02d}:00.000Z"
        con.execute("INSERT INTO work_sessions (session_id, title, workspace, created_at, updated_at, "
                    "capability_composition_json) VALUES (?,?,?,?,?,?)",
                    (sid, f"task {sid}", "/ws/shop", t, t, json.dumps({**comp, "agentInstructions": "x"})))
        run = f"run_{sid}"
        con.execute("INSERT INTO work_runs (run_id, session_id, text, response, model, status, started_at, "
                    "finished_at) VALUES (?,?,?,?,?,?,?,?)", (run, sid, f"do {sid}", "Done.", "glm-4.6",
                                                              "completed", t, t))
        con.execute("INSERT INTO neutral_session_entries VALUES (?,?,?,?,?,?,?)",
                    (sid, f"e_{sid}", 1, run, "request", json.dumps({"data": {"text": f"do {sid}"}}), t))
        for k, (aid, at) in enumerate(parts):
            con.execute("INSERT INTO collaboration_run_agent_participations (participation_id, run_id, agent_id, "
                        "name, outcome, created_at) VALUES (?,?,?,?,?,?)",
                        (f"p{k}_{sid}", run, aid, aid, "completed", at))
    con.close()


@pytest.fixture(scope="module")
def owners(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    base = tmp_path_factory.mktemp("owners")
    _account(base / "autoclaw")
    wh = Warehouse.open(base / "dsh", base / "autoclaw", base / "akw")
    assert wh.reindex()["outcome"] == "published"
    rows = wh.sql("SELECT session_id, actor_id, owner_rule FROM ak_episode WHERE source = 'autoclaw'")
    out = {r[0]: dict(zip(rows["columns"], r, strict=True)) for r in rows["rows"]}
    actors = wh.sql("SELECT agent_id, episodes FROM ak_actor WHERE kind = 'autoclaw_agent'")
    out["_episodes"] = dict(actors["rows"])
    return out


@pytest.mark.parametrize("session", sorted(CASES))
def test_each_rule_links_the_owner_and_records_itself(owners: dict[str, dict[str, Any]], session: str) -> None:
    _, _, agent, rule = CASES[session]
    got = owners[session]
    assert (got["actor_id"], got["owner_rule"]) == (f"actor:autoclaw:agent:{ACCOUNT}:{agent}" if agent else None, rule)


def test_saved_agents_count_the_runs_they_own(owners: dict[str, dict[str, Any]]) -> None:
    expected = {aid: sum(c[2] == aid for c in CASES.values()) for aid, _, _ in AGENTS}
    assert owners["_episodes"] == expected
    assert expected["agt_qa_old"] == 0 and expected["agt_ops"] == 3
