"""knowledge_dispatch v1 on generated data: KD-1…KD-6, AC-7, the outbox's survival, the §15 flow, UJ-3.

Real parts only: generated sources, real reindexes, the real CLI; settings changed through
`Settings.with_value` exactly as `akw config set` does.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cli_run
import pytest
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.home import generation, outbox
from warehouse.search.snippets import UNTRUSTED_OPEN

AKW = Path(sys.executable).parent / "akw"
SKILL = "mysql-access-restore"
TASK = {"title": "Restore MySQL root access",
        "text": f"root gets ERROR 1045 on 176.99.5.35; use {SKILL}",
        "acceptance": ["root can log in", "no database is lost"],
        "constraints": ["no restart during business hours"]}


def req(**kw: Any) -> dict[str, Any]:
    return {"schema": "knowledge.dispatch/v1", "task": TASK, **kw}


def commit(**kw: Any) -> dict[str, Any]:
    return req(dry_run=False, commit=True, confirm=True, **kw)


@pytest.fixture(scope="module")
def src(home24: BuiltHome) -> Path:
    return home24.src


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """A home nobody commits to (read-only tests)."""
    return home24.copy(tmp_path_factory.mktemp("home"))


@pytest.fixture()
def fresh(home24: BuiltHome, tmp_path: Path) -> Warehouse:
    """A home of its own for a test that commits."""
    return home24.copy(tmp_path / "home")


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            out[str(p.relative_to(root))] = (p.stat().st_size, p.stat().st_mtime_ns,
                                             hashlib.sha256(p.read_bytes()).hexdigest())
    return out


def _sql(wh: Warehouse, q: str) -> list[list[Any]]:
    """Read the published generation through the engine's connection (one DuckDB configuration per file)."""
    cur, _gen = wh.engine.reader()
    try:
        return [list(r) for r in cur.execute(q).fetchall()]
    finally:
        cur.close()


def _cli(wh: Warehouse, *args: str, stdin: bytes | None = None) -> tuple[int, dict[str, Any]]:
    """`akw --dsh-home … --autoclaw-root … --home … ARGS --json`, the app in-process (tests/cli_run.py)."""
    return cli_run.akw_json("--dsh-home", str(wh.paths.dsh_home), "--autoclaw-root", str(wh.paths.autoclaw_root),
                            "--home", str(wh.paths.home), *args, stdin=stdin)


def _codes(doc: dict[str, Any]) -> list[str]:
    return [e["code"] for e in doc["errors"]]


# -- KD-1 / AC-7: a dry run writes nothing ------------------------------------------------------
def test_kd1_dry_run_and_plan_only_write_nothing(wh: Warehouse) -> None:
    before = _tree(wh.paths.home)
    plan = wh.dispatch(req())
    plan_only = wh.dispatch(req(dry_run=False, commit=False))
    wh.dispatch(req(dry_run=False, commit=True))  # refused: no confirmation
    assert _tree(wh.paths.home) == before
    assert not wh.paths.outbox.exists()
    for d in (plan, plan_only):
        assert d["mode"] == "dry_run" and d["assignment"] is None and d["errors"] == []
        assert d["handoff"]["execution"] == "not_executed"
    assert _sql(wh, "SELECT count(*) FROM ak_assignment") == [[0]]


def test_commit_without_confirmation_is_the_plan_and_a_coded_refusal(wh: Warehouse) -> None:
    d = wh.dispatch(req(dry_run=False, commit=True))
    assert d["mode"] == "dry_run" and d["assignment"] is None and d["target"] is not None
    assert _codes(d) == [Code.DISPATCH_UNAUTHORIZED.value] and d["errors"][0]["field"] == "confirm"
    assert not wh.paths.outbox.exists()


# -- KD-2: one record, repeat is idempotent, a reused id with another request conflicts ---------
def test_kd2_commit_records_once_and_a_repeat_changes_nothing(fresh: Warehouse) -> None:
    first = fresh.dispatch(commit(dispatch_id="kd2"))
    a = first["assignment"]
    assert first["mode"] == "commit" and a["created"] is True and a["status"] == "recorded_plan"
    files = sorted(fresh.paths.outbox.iterdir())
    assert [f.name for f in files] == [Path(a["package_file"]).name]
    assert (files[0].stat().st_mode & 0o777) == 0o600 and (fresh.paths.outbox.stat().st_mode & 0o777) == 0o700
    snapshot = _tree(fresh.paths.outbox)
    again = fresh.dispatch(commit(dispatch_id="kd2"))
    assert again["assignment"] == {**a, "created": False}
    assert {k: v for k, v in again.items() if k != "assignment"} == {k: v for k, v in first.items()
                                                                       if k != "assignment"}
    assert _tree(fresh.paths.outbox) == snapshot
    with pytest.raises(KnowledgeError) as e:
        fresh.dispatch(commit(dispatch_id="kd2", task={**TASK, "title": "something else"}))
    assert e.value.code == Code.DISPATCH_CONFLICT.value
    assert _tree(fresh.paths.outbox) == snapshot
    # the record holds who, to whom, when, why, evidence and the package
    shown = fresh.dispatch_show("kd2")
    assert shown["assignment"]["actor_id"] == first["target"]["actor_id"]
    assert shown["assignment"]["why"] and shown["assignment"]["evidence"]["episodes"]
    assert shown["handoff"]["schema"] == "knowledge.handoff/v1" and shown["handoff"]["execution"] == "not_executed"
    assert fresh.dispatch_list()["count"] == 1
    # the mart is built from the outbox; its declared constraints hold once it has rows
    fresh.reindex()
    assert _sql(fresh, "SELECT assignment_id, dispatch_id, status FROM ak_assignment") == [
        [a["assignment_id"], "kd2", "recorded_plan"]]
    code, verify = _cli(fresh, "reindex", "--mode", "verify")  # its own process: its own DuckDB configuration
    assert code == 0 and verify["ok"], verify["mismatches"]


def test_kd2_a_request_without_dispatch_id_is_idempotent_too(fresh: Warehouse) -> None:
    one, two = fresh.dispatch(commit()), fresh.dispatch(commit())
    assert one["assignment"]["assignment_id"] == two["assignment"]["assignment_id"]
    assert (one["assignment"]["created"], two["assignment"]["created"]) == (True, False)
    assert fresh.dispatch_list()["count"] == 1


# -- KD-3: a named skill goes to the actor who used it most ------------------------------------
def test_kd3_named_skill_targets_the_actor_with_most_skill_uses(wh: Warehouse) -> None:
    expected = _sql(wh, f"SELECT actor_id, count(*) n FROM ak_skill_use WHERE skill_name = '{SKILL}' "
                        "GROUP BY actor_id ORDER BY n DESC, max(time) DESC, actor_id LIMIT 1")[0]
    d = wh.dispatch(req())
    assert d["target"]["actor_id"] == expected[0] and d["target"]["choice"] == "named_skill"
    assert any(f"{expected[1]} time" in w for w in d["target"]["why"])


def test_kd3_implied_skill_counts_as_named(wh: Warehouse) -> None:
    d = wh.dispatch(req(task={"text": "please restore mysql access for root on the db host"}))
    assert d["target"]["choice"] == "implied_skill"
    assert d["target"]["actor_id"] == wh.dispatch(req())["target"]["actor_id"]


def test_without_a_skill_the_best_search_actor_is_the_target(wh: Warehouse) -> None:
    text = "Кто уже занимался переносом сайта iya.ru на новый сервер?"
    best = wh.search_text(text, mode="find_agent")["actors"][0]["actor_id"]
    d = wh.dispatch(req(task={"text": text}))
    assert d["target"]["choice"] in ("search", "named_skill", "implied_skill")
    if d["target"]["choice"] == "search":
        assert d["target"]["actor_id"] == best


def test_explicit_actor_must_exist(wh: Warehouse) -> None:
    with pytest.raises(KnowledgeError) as e:
        wh.dispatch(req(target="actor:harness:root:session-does-not-exist"))
    assert e.value.code == Code.NOT_FOUND.value and e.value.details["field"] == "target.actor_id"


def test_no_fitting_actor_is_an_honest_refusal(wh: Warehouse) -> None:
    d = wh.dispatch(req(dry_run=False, commit=True, confirm=True,
                        task={"text": "qzxv wlorp frandigastic yembuluth"}))
    assert d["target"] is None and d["handoff"] is None and d["assignment"] is None
    assert _codes(d) == [Code.NOT_FOUND.value]
    assert d["suggestion"]["action"] == "create_actor"
    assert not wh.paths.outbox.exists()


# -- KD-4: `available` is the truth about settings and what exists --------------------------------
def test_kd4_available_follows_settings_and_refuses_a_commit(home24: BuiltHome, tmp_path: Path) -> None:
    wh = home24.copy(tmp_path / "home")
    ac = _sql(wh, "SELECT actor_id FROM ak_actor WHERE kind = 'autoclaw_agent' ORDER BY actor_id LIMIT 1")[0][0]
    d = wh.dispatch(req(target=ac))
    assert d["target"]["dispatch"] == {"mode": "external_handoff", "available": True, "reasons": []}
    assert d["handoff"]["tool_calls"] == []  # external_handoff: a package only
    off = Warehouse(wh.paths, wh.settings.with_value("dispatch.allow_external_handoff", "false"))
    d = off.dispatch(req(target=ac, dry_run=False, commit=True, confirm=True))
    assert d["target"]["dispatch"]["available"] is False
    assert d["target"]["dispatch"]["reasons"] == ["dispatch.allow_external_handoff is false"]
    assert _codes(d) == [Code.DISPATCH_UNAUTHORIZED.value] and d["assignment"] is None
    disabled = Warehouse(wh.paths, wh.settings.with_value("dispatch.enabled", "false"))
    assert disabled.dispatch(req())["target"]["dispatch"]["available"] is False
    assert disabled.search_text(TASK["text"], mode="find_agent")["actors"][0]["dispatch"]["available"] is False
    assert not wh.paths.outbox.exists()


def test_modes_per_actor_kind_propose_the_right_tool_calls(wh: Warehouse) -> None:
    kinds = {"root_session": "spawn_replica", "team_member": "team_task"}
    tools = {"spawn_replica": ["spawn_teammate", "team_task_create", "send_message"],
             "team_task": ["team_task_create", "send_message"]}
    for kind, mode in kinds.items():
        actor = _sql(wh, f"SELECT actor_id FROM ak_actor WHERE kind = '{kind}' ORDER BY actor_id LIMIT 1")[0][0]
        d = wh.dispatch(req(target={"mode": "actor", "actor_id": actor}))
        assert d["target"]["dispatch"]["mode"] == mode
        assert [c["tool"] for c in d["handoff"]["tool_calls"]] == tools[mode]


# -- KD-5: the context pack -----------------------------------------------------------------------
def test_kd5_context_pack_has_acceptance_episodes_code_skills_risks(wh: Warehouse) -> None:
    d = wh.dispatch(req())
    pack = d["context_pack"]
    assert pack["acceptance"] == TASK["acceptance"] and pack["constraints"] == TASK["constraints"]
    assert pack["prior_episodes"] and pack["code_refs"] and isinstance(pack["risks"], list)
    skill = next(s for s in pack["skills"] if s["name"] == SKILL)
    assert skill["uses"] > 0 and skill["instructions"].startswith(UNTRUSTED_OPEN)
    snippets = [x["snippet"] for x in pack["prior_episodes"] + pack["code_refs"] if x.get("snippet")]
    assert snippets and all(s.startswith(UNTRUSTED_OPEN) for s in snippets)
    known = {r[0] for r in _sql(wh, "SELECT episode_id FROM ak_episode")}
    assert set(d["evidence"]["episodes"]) <= known  # nothing invented
    assert d["handoff"]["context_pack"] == pack


def test_secrets_in_the_task_are_redacted(wh: Warehouse) -> None:
    d = wh.dispatch(req(task={**TASK, "text": f"use {SKILL}; password=hunter2-SECRET-canary"}))
    assert "hunter2-SECRET-canary" not in json.dumps(d)


# -- KD-6: nothing is executed, no source is written ----------------------------------------------
def test_kd6_commit_executes_nothing_and_writes_no_source(fresh: Warehouse, src: Path) -> None:
    sources = {name: _tree(src / name) for name in ("dsh", "autoclaw", "workspaces")}
    d = fresh.dispatch(commit(dispatch_id="kd6"))
    assert d["handoff"]["execution"] == "not_executed"
    assert {name: _tree(src / name) for name in sources} == sources
    written = [p.relative_to(fresh.paths.home) for p in fresh.paths.home.rglob("*") if p.is_file()
               and p.stat().st_mtime_ns >= Path(d["assignment"]["package_file"]).stat().st_mtime_ns
               and p.parent.name != "access"]  # the access counter (hits of the returned target)
    assert written == [Path("outbox") / Path(d["assignment"]["package_file"]).name]


# -- determinism, validation --------------------------------------------------------------------------
def test_same_request_same_index_same_plan(wh: Warehouse) -> None:
    assert wh.dispatch(req()) == wh.dispatch(req())


@pytest.mark.parametrize(("doc", "field"), [
    ({"task": TASK, "oops": 1}, "oops"),
    ({}, "task"),
    ({"task": {"acceptance": ["x"]}}, "task.text"),
    ({"task": TASK, "commit": True}, "dry_run"),
    ({"task": TASK, "target": "somebody"}, "target"),
    ({"task": TASK, "target": {"mode": "actor"}}, "target.actor_id"),
    ({"task": TASK, "target": {"mode": "auto", "count": 2}}, "target.count"),
    ({"task": TASK, "dispatch_id": "bad id with spaces"}, "dispatch_id"),
    ({"task": {**TASK, "deadline": "2026-10-30 18:00"}}, "task.deadline"),
    ({"task": TASK, "dry_run": "no"}, "dry_run"),
])
def test_invalid_requests_are_coded(wh: Warehouse, doc: dict[str, Any], field: str) -> None:
    with pytest.raises(KnowledgeError) as e:
        wh.dispatch(doc)
    assert e.value.code == Code.INVALID_REQUEST.value and e.value.details["field"] == field


# -- the outbox survives rebuilds and a killed build -----------------------------------------------------
def test_assignments_survive_a_full_rebuild_and_kill_9(fresh: Warehouse, src: Path) -> None:
    d = fresh.dispatch(commit(dispatch_id="survivor"))
    record = Path(d["assignment"]["package_file"])
    data = record.read_bytes()
    fresh.reindex(mode="full")
    assert record.read_bytes() == data
    gens = fresh.paths.generations
    p = subprocess.Popen([str(AKW), "--dsh-home", str(src / "dsh"), "--autoclaw-root", str(src / "autoclaw"),
                          "--home", str(fresh.paths.home), "reindex", "--mode", "full", "--json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(gens.glob(".building-*.duckdb")) and p.poll() is None:
        time.sleep(0.01)
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert record.read_bytes() == data
    assert fresh.dispatch_list()["count"] == 1
    fresh.reindex()
    assert _sql(fresh, "SELECT dispatch_id FROM ak_assignment") == [["survivor"]]
    assert generation.current(gens) is not None and outbox.read_all(fresh.paths)[1] == []


# -- §15 "find the agent → open the skill → hand over the task", through the CLI ----------------------
def test_section15_find_the_agent_open_the_skill_hand_over_the_task(fresh: Warehouse, tmp_path: Path) -> None:
    # 1) find the agent
    code, found = _cli(fresh, "search", "restore MySQL access, root gets ERROR 1045", "--mode", "find_agent")
    assert code == 0 and found["actors"]
    skill = next(s["name"] for a in found["actors"] for s in a["skills"])
    # 2) open the skill: the card answers the task with points that carry their evidence
    code, card = _cli(fresh, "get", "skill", skill, "--task", "root gets ERROR 1045 on MySQL")
    assert code == 0 and card["name"] == skill and card["body"]
    assert card["usage"]["uses"] >= 1 and card["task_answer"]["checklist"]
    assert all(point["evidence"] for point in card["task_answer"]["checklist"])
    # 3) hand over the task: a dry run, then a confirmed commit, then the outbox package
    steps = len(card["task_answer"]["checklist"])
    request = {"schema": "knowledge.dispatch/v1", "dispatch_id": "s15",
               "task": {"title": "Restore MySQL root access", "text": f"use {skill}: root gets ERROR 1045",
                        "constraints": [f"follow the skill card's {steps}-step checklist"],
                        "acceptance": ["root can log in"]}}
    f = tmp_path / "req.json"
    f.write_text(json.dumps(request))
    code, plan = _cli(fresh, "dispatch", "--request", str(f))
    assert code == 0 and plan["mode"] == "dry_run" and plan["target"]["actor_id"]
    commit_doc = json.dumps({**request, "dry_run": False, "commit": True}).encode()
    code, refused = _cli(fresh, "dispatch", "--request", "-", stdin=commit_doc)
    assert code == 1 and [e["code"] for e in refused["errors"]] == [Code.DISPATCH_UNAUTHORIZED.value]
    code, done = _cli(fresh, "dispatch", "--request", "-", "--yes", stdin=commit_doc)
    assert code == 0 and done["mode"] == "commit" and done["assignment"]["created"] is True
    assert done["target"]["actor_id"] == plan["target"]["actor_id"]
    code, listed = _cli(fresh, "dispatch", "list")
    assert code == 0 and [a["dispatch_id"] for a in listed["assignments"]] == ["s15"]
    code, shown = _cli(fresh, "dispatch", "show", "s15")
    assert code == 0 and shown["handoff"]["assignment_id"] == done["assignment"]["assignment_id"]
    code, missing = _cli(fresh, "dispatch", "show", "nope")
    assert code == 2 and missing["errors"][0]["code"] == Code.NOT_FOUND.value
    # `dispatch show` without --json: the package for a person (lists, not a JSON dump)
    shown_text = cli_run.run("--dsh-home", str(fresh.paths.dsh_home), "--autoclaw-root", str(fresh.paths.autoclaw_root),
                             "--home", str(fresh.paths.home), "dispatch", "show", "s15").stdout
    assert not shown_text.lstrip().startswith("{") and "acceptance" in shown_text and "• root can log in" in shown_text
    assert done["assignment"]["assignment_id"] in shown_text and "tool calls" in shown_text


@pytest.mark.parametrize("plan", [{}, {"dry_run": True}, {"dry_run": True, "commit": True}, {"dry_run": False}])
def test_yes_on_a_request_that_is_still_a_plan_is_refused_not_run_as_a_dry_run(fresh: Warehouse, plan: dict) -> None:
    """--yes confirms a commit: a request that would stay a dry run says so with a coded error and records nothing."""
    doc = json.dumps({**req(dispatch_id="yes-plan"), **plan}).encode()
    code, refused = _cli(fresh, "dispatch", "--request", "-", "--yes", stdin=doc)
    assert code == 2 and refused["errors"][0]["code"] == Code.INVALID_REQUEST.value
    assert refused["errors"][0]["field"] == "dry_run" and '"commit": true' in refused["errors"][0]["message"]
    assert fresh.dispatch_list()["count"] == 0


# -- UJ-3 in the demo ---------------------------------------------------------------------------------------
def test_demo_runs_uj3_dry_run_commit_and_package(tmp_path: Path) -> None:
    doc = Warehouse.demo(tmp_path / "demo", sessions=24, seed=7)
    journeys = {j["id"]: j for j in doc["journeys"]}
    assert [j["id"] for j in doc["journeys"]] == ["UJ-1", "UJ-2", "UJ-3", "UJ-4", "UJ-5"]  # spec §15's story first
    uj3 = journeys["UJ-3"]["result"]
    assert uj3["dry_run"]["mode"] == "dry_run" and uj3["dry_run"]["assignment"] is None
    assert uj3["commit"]["mode"] == "commit" and uj3["commit"]["assignment"]["created"] is True
    assert uj3["outbox"]["handoff"]["execution"] == "not_executed"
    assert journeys["UJ-2"]["result"]["task_answer"]["checklist"]  # the skill card answers the task
    again = Warehouse.demo(tmp_path / "demo", sessions=24, seed=7)  # a second demo replays the same dispatch
    assert {j["id"]: j for j in again["journeys"]}["UJ-3"]["result"]["commit"]["assignment"]["created"] is False
    assert doc["reindex"]["first_build"] is True and "first_build" not in again["reindex"]  # "incremental" only when
    assert journeys["UJ-5"]["result"]["last_run"]["first_build"] is True                      # it was
    # what a person sees at 80 columns (piped): the journeys in order, each with its question, the skill card's
    # task answer, the plan's acceptance and risks, the handoff summary, a readable status, the next steps
    shown = subprocess.run([str(AKW), "demo", "--out", str(tmp_path / "demo")], capture_output=True, text=True,
                           env={**os.environ, "COLUMNS": "80"}, timeout=120, check=True).stdout
    heads = [shown.index(f"{uj} · ") for uj in ("UJ-1", "UJ-2", "UJ-3", "UJ-4", "UJ-5")]
    assert heads == sorted(heads)
    for seen in ("applicability", "checklist", "typical errors", "acceptance", "• root can log in with the new",
                 "risks", "handoff assign:", "tool calls (not executed)", "coverage (source → indexed)",
                 "errors: none", "next run:", "akw mcp"):
        assert seen in shown, seen
    wide = [ln for ln in shown.splitlines() if len(ln) > 80 and not ln.startswith("export ")]  # pasted whole
    assert not wide, wide
    assert "…" not in shown.split("UJ-1 · ")[0]  # the extract table cuts no source name or count
    for ident in (uj3["commit"]["assignment"]["assignment_id"], uj3["dry_run"]["target"]["actor_id"]):
        assert ident in shown.replace("\n", "")  # wrapped, never cut
