"""The agent card (`knowledge_get_agent`): who an actor is, what it did, with what result, and how to reach it.

Everything comes from the marts of the published generation: `ak_actor` (identity, counts, dispatch
mode), `ak_episode` (episodes, workspaces, models), `ak_skill_use` (skills), `stg_ac_agents`
(an AutoClaw agent's description and instructions) and `stg_ac_participations` (runs it joined).
Whether dispatch is available now is the settings' answer (KD-4), not a promise.
With `task`, episodes sharing words with the task come first and `task_fit` says why.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.cards.contract import (
    MAX_LIST,
    AgentCard,
    AgentEpisode,
    AgentSkill,
    AgentStats,
    Dispatch,
    Evidence,
    Participation,
    Point,
    Workspace,
)
from warehouse.cards.lookup import Budget, iso, matched, not_found, one, rows, terms
from warehouse.cards.texts import Lang, say
from warehouse.core.settings import Settings
from warehouse.search.actors import dispatch_available


def agent_card(con: duckdb.DuckDBPyConnection, index_rev: str, settings: Settings, actor_id: str,
               task: str | None, budget: Budget, lang: Lang = "en") -> AgentCard:
    """`lang`: the language of the card's own texts (dispatch reason, task fit), decided once by the caller."""
    a = one(con, "SELECT * FROM ak_actor WHERE actor_id = ?", [actor_id])
    if a is None:
        raise not_found("agent", actor_id, index_rev, "ids are ak_actor.actor_id (search: actors[].actor_id)")
    eps = rows(con, """
        SELECT e.episode_id, e.title, e.started_at, e.ended_at, e.outcome, e.workspace_id, e.workspace_path,
               e.evidence_ref, e.model, e.session_id, e.seq_first, e.seq_last,
               (SELECT min(d.doc_key) FILTER (WHERE d.kind = 'episode') FROM ak_document d
                 WHERE d.episode_id = e.episode_id) AS goal_doc,
               (SELECT string_agg(d.text, ' ') FROM ak_document d
                 WHERE d.episode_id = e.episode_id AND d.kind = 'episode') AS goal_text
        FROM ak_episode e WHERE e.actor_id = ?
        ORDER BY e.started_at DESC NULLS LAST, e.episode_id""", [actor_id])
    task_terms = terms(task) if task else []
    items = []
    for e in eps:
        ev = [Evidence(kind="episode", id=e["episode_id"], note=e["evidence_ref"])]
        if e["goal_doc"]:
            ev.append(Evidence(kind="document", id=e["goal_doc"], note="the request that started it"))
        items.append(AgentEpisode(
            episode_id=e["episode_id"], title=budget.text("episodes[].title", e["title"], 300),
            started_at=iso(e["started_at"]), ended_at=iso(e["ended_at"]), outcome=e["outcome"],
            workspace=e["workspace_path"] or e["workspace_id"], evidence_ref=e["evidence_ref"], evidence=ev,
            task_terms=matched(task_terms, f"{e['title'] or ''} {e['goal_text'] or ''}")))
    if task_terms:  # the task's episodes first (more shared words first), then newest first as before
        order = {it.episode_id: i for i, it in enumerate(items)}
        items.sort(key=lambda it: (-len(it.task_terms), order[it.episode_id]))
    budget.listing("episodes", min(len(items), MAX_LIST), len(items))
    skills = rows(con, """
        SELECT skill_name AS name, count(*) AS uses, max(time) AS last_used_at,
               count(*) FILTER (WHERE outcome = 'success') AS successes, min(skill_id) AS skill_id
        FROM ak_skill_use WHERE actor_id = ? GROUP BY skill_name ORDER BY uses DESC, name""", [actor_id])
    workspaces = rows(con, """
        SELECT workspace_id, workspace_path AS path, count(*) AS episodes FROM ak_episode WHERE actor_id = ?
        GROUP BY ALL ORDER BY episodes DESC, workspace_id NULLS LAST, path NULLS LAST""", [actor_id])
    if not workspaces and (a["workspace_id"] or a["workspace_path"]):
        workspaces = [{"workspace_id": a["workspace_id"], "path": a["workspace_path"], "episodes": 0}]
    models = sorted({e["model"] for e in eps if e["model"]})
    ac = _autoclaw_agent(con, a)
    if ac and ac.get("model"):
        models = sorted({*models, ac["model"]})
    parts = _participations(con, a)
    mode = a["dispatch_mode"]
    available = dispatch_available(settings.dispatch, mode)
    setting = "dispatch.allow_external_handoff" if mode == "external_handoff" else "dispatch.allow_spawn_replica"
    dispatch = Dispatch(mode=mode, available=available,
                        reason=say("agent.dispatch", lang, setting=setting, state="true" if available else "false"))
    card = AgentCard(
        index_rev=index_rev, actor_id=actor_id, kind=a["kind"], source=a["source"],
        display_name=a["display_name"],
        description=budget.text("description", (ac or {}).get("description") or a["description"]),
        instructions=budget.text("instructions", (ac or {}).get("instructions")),
        parent_session_id=a["parent_session_id"], sessions=list(a["session_ids"] or []),
        workspaces=[Workspace(**w) for w in workspaces], models=models,
        first_activity=iso(a["first_activity"]), last_activity=iso(a["last_activity"]),
        stats=AgentStats(episodes=a["episodes"], successes=a["successes"], partials=a["partials"],
                         failures=a["failures"], success_rate=a["success_rate"], tool_calls=int(a["tool_calls"]),
                         participations=a["participations"]),
        dispatch=dispatch,
        skills=[AgentSkill(name=s["name"], uses=s["uses"], last_used_at=iso(s["last_used_at"]),
                           successes=s["successes"], skill_id=s["skill_id"]) for s in skills],
        episodes=items[:MAX_LIST], episodes_total=len(items), participations=parts[:MAX_LIST],
        task=task, task_fit=_task_fit(task_terms, items, skills, a, lang) if task else [],
    )
    card.truncated = budget.cuts
    return card


def _autoclaw_agent(con: duckdb.DuckDBPyConnection, a: dict[str, Any]) -> dict[str, Any] | None:
    if a["source"] != "autoclaw" or not a["agent_id"]:
        return None
    return one(con, "SELECT description, instructions, model FROM stg_ac_agents WHERE account = ? AND agent_id = ?",
               [a["account"], a["agent_id"]])


def _participations(con: duckdb.DuckDBPyConnection, a: dict[str, Any]) -> list[Participation]:
    if a["source"] != "autoclaw" or not a["agent_id"]:
        return []
    found = rows(con, """
        SELECT p.run_id, p.reason AS role, p.assignment, p.outcome, p.attempts, p.failed_attempts, e.episode_id
        FROM stg_ac_participations p
        LEFT JOIN ak_episode e ON e.account = p.account AND e.run_id = p.run_id
        WHERE p.account = ? AND p.agent_id = ?
        ORDER BY p.created_at DESC NULLS LAST, p.run_id""", [a["account"], a["agent_id"]])
    return [Participation(**{**p, "assignment": p["assignment"]}) for p in found]


def _task_fit(task_terms: list[str], items: list[AgentEpisode], skills: list[dict[str, Any]],
              a: dict[str, Any], lang: Lang = "en") -> list[Point]:
    """Why this actor fits (or not) the task: matching episodes, their outcomes, matching skills."""
    out = []
    hits = [it for it in items if it.task_terms]
    if hits:
        ok = [it for it in hits if it.outcome == "success"]
        shared = ", ".join(sorted({t for it in hits for t in it.task_terms}))
        out.append(Point(text=say("agent.fit_hits", lang, hits=len(hits), total=len(items), terms=shared, ok=len(ok)),
                         evidence=[Evidence(kind="episode", id=it.episode_id, note=it.outcome) for it in hits[:5]]))
    else:
        out.append(Point(text=say("agent.fit_none", lang),
                         evidence=[Evidence(kind="actor", id=a["actor_id"], note=f"{len(items)} episodes checked")]))
    skill_hits = [s for s in skills if matched(task_terms, s["name"].replace("-", " "))]
    if skill_hits:
        out.append(Point(text=say("agent.fit_skills", lang,
                                  skills=", ".join(f"{s['name']} ({s['uses']}×)" for s in skill_hits)),
                         evidence=[Evidence(kind="skill", id=s["skill_id"] or s["name"]) for s in skill_hits]))
    if a["success_rate"] is not None:
        out.append(Point(text=say("agent.fit_rate", lang, rate=a["success_rate"], n=a["episodes"]),
                         evidence=[Evidence(kind="actor", id=a["actor_id"], note="ak_actor.success_rate")]))
    return out
