"""The context pack of a plan (contract 000 §14 rule 5, KD-5; spec 001 FR-7.3).

Goal, acceptance, constraints, prior episodes, code refs, skills with use counts and their key
instructions, artifacts and known risks — references and short snippets only. Every piece of
indexed text (snippets, skill descriptions) is wrapped with `untrusted()`: the agent that reads
the package must treat it as data, never as instructions. Risks are written in our own words
from facts (outcomes, tool-error counts, degraded lanes) and name episodes by id, never by text.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.cards.texts import Lang, say
from warehouse.core import db
from warehouse.core.sqlfiles import query_sql
from warehouse.dispatch.contract import (
    ArtifactRef,
    CodeRef,
    ContextPack,
    DispatchRequest,
    EpisodeRef,
    Evidence,
    SkillRef,
)
from warehouse.search.messages import outcome as outcome_words
from warehouse.search.snippets import clean, untrusted

_BAD_OUTCOMES = ("failure", "partial", "cancelled")


def _short(text: str | None, chars: int) -> str | None:
    if not text:
        return None
    text = clean(text)
    return untrusted(text if len(text) <= chars else text[: chars - 1].rstrip() + "…")


def _rows(con: duckdb.DuckDBPyConnection, name: str, params: list[Any]) -> list[dict[str, Any]]:
    return db.rows(con, query_sql(name), params)


def _iso(v: Any) -> str | None:
    return v.isoformat().replace("+00:00", "Z") if hasattr(v, "isoformat") else (str(v) if v else None)


def build(con: duckdb.DuckDBPyConnection, req: DispatchRequest, search: dict[str, Any], actor_id: str | None,
          skills: list[str], lang: Lang = "en") -> tuple[ContextPack, Evidence]:
    """The pack for `actor_id` (None: a refusal still shows what the index knows about the task); its own
    texts (why, risks) in `lang`."""
    opts = req.context
    chars = opts.snippet_chars
    ep_items = search["lanes"]["episodes"]["items"]
    episode_of = {(r["session_id"], r["seq"]): r for r in _rows(
        con, "dispatch_event_episodes", [[i["session_id"] for i in ep_items], [i["seq"] for i in ep_items]])}
    target_evidence = next((a["evidence"] for a in search.get("actors", []) if a["actor_id"] == actor_id), [])
    cited = {e["id"] for e in target_evidence}

    refs: list[EpisodeRef] = []
    outcomes: dict[str, tuple[str | None, int]] = {}  # episode id -> (outcome, tool errors), for risks
    seen: set[str] = set()

    def add(ref: EpisodeRef, outcome: str | None, tool_errors: int) -> None:
        key = ref.episode_id or f"{ref.session_id}:{ref.seq}"  # one ref per episode
        if key in seen or len(refs) >= opts.include_episodes:
            return
        seen.add(key)
        refs.append(ref)
        if ref.episode_id:
            outcomes[ref.episode_id] = (outcome, tool_errors)

    # 1) where the target used the task's skills, 2) the target's own evidence from search,
    # 3) the rest of what search found for the task
    if actor_id and skills:
        for r in _rows(con, "dispatch_skill_episodes", [actor_id, skills]):
            add(EpisodeRef(episode_id=r["episode_id"], session_id=r["session_id"], seq=r["seq"],
                           actor_id=r["actor_id"], time=_iso(r["time"]), outcome=r["outcome"],
                           why=[say("pack.used_skill", lang, name=r["skill_name"])]),
                r["outcome"], int(r["tool_errors"] or 0))
    ordered = sorted(ep_items, key=lambda i: i["id"] not in cited)  # stable: search order within each
    for it in ordered:
        if it["id"] not in cited:
            continue
        ep = episode_of.get((it["session_id"], it["seq"]), {})
        add(EpisodeRef(episode_id=ep.get("episode_id"), session_id=it["session_id"], seq=it["seq"],
                       actor_id=ep.get("actor_id"), time=it.get("time"), outcome=ep.get("outcome"),
                       snippet=_short(it.get("snippet"), chars), why=[say("pack.target_evidence", lang)]),
            ep.get("outcome"), int(ep.get("tool_errors") or 0))
    for it in ordered:
        ep = episode_of.get((it["session_id"], it["seq"]), {})
        add(EpisodeRef(episode_id=ep.get("episode_id"), session_id=it["session_id"], seq=it["seq"],
                       actor_id=ep.get("actor_id"), time=it.get("time"), outcome=ep.get("outcome"),
                       snippet=_short(it.get("snippet"), chars), why=[say("pack.related", lang)]),
            ep.get("outcome"), int(ep.get("tool_errors") or 0))

    code_refs = [CodeRef(id=c["id"], path=c["path"], start_line=c["start_line"], end_line=c.get("end_line"),
                         workspace=c.get("workspace"), snippet=_short(c.get("snippet"), chars),
                         why=list(c.get("why", []))[:2])
                 for c in search["lanes"]["code"]["items"][: opts.include_code]]

    skill_refs: list[SkillRef] = []
    if opts.include_skills:
        lane = (search["lanes"].get("skills") or {}).get("items", [])
        names = list(dict.fromkeys([*skills, *(s["name"] for s in lane[:3])]))
        details = {r["name"]: r for r in _rows(con, "dispatch_skills", [names])} if names else {}
        for n in names:
            d = details.get(n)
            if d is None:
                continue  # a removed or unknown skill is never offered
            instructions = " ".join(p for p in (d.get("description"), d.get("when_to_use")) if p)
            why = [say("pack.skill_named" if n in skills else "pack.skill_related", lang)]
            skill_refs.append(SkillRef(name=n, uses=int(d["total_uses"] or 0), path=d.get("path"),
                                       content_hash=d.get("content_hash"),
                                       instructions=_short(instructions, max(chars, 400)), why=why))

    artifacts: list[ArtifactRef] = []
    if opts.include_artifacts and outcomes:
        artifacts = [ArtifactRef(path=r["path"], kind=r["kind"], episode_id=r["episode_id"])
                     for r in _rows(con, "dispatch_artifacts", [sorted(outcomes), 5])]

    risks = _risks(search, refs, outcomes, actor_id, lang)
    pack = ContextPack(goal=req.task.summary(), title=req.task.title,
                       deadline=_iso(req.task.deadline), acceptance=list(req.task.acceptance),
                       constraints=list(req.task.constraints), prior_episodes=refs, code_refs=code_refs,
                       skills=skill_refs, artifacts=artifacts, risks=risks)
    evidence = Evidence(episodes=[r.episode_id or f"{r.session_id}:{r.seq}" for r in refs],
                        code=[c.id for c in code_refs], skills=[s.name for s in skill_refs])
    return pack, evidence


def _risks(search: dict[str, Any], refs: list[EpisodeRef], outcomes: dict[str, tuple[str | None, int]],
           actor_id: str | None, lang: Lang = "en") -> list[str]:
    out = []
    for r in refs:
        if not r.episode_id:
            continue
        outcome, errors = outcomes.get(r.episode_id, (None, 0))
        whose = "own" if r.actor_id == actor_id else "related"
        if outcome in _BAD_OUTCOMES:
            out.append(say(f"risk.{whose}_ended", lang, id=r.episode_id, outcome=outcome_words(outcome, lang)))
        if errors:
            out.append(say(f"risk.{whose}_errors", lang, id=r.episode_id, n=errors))
    for lane, info in sorted(search["lanes"].items()):
        if info and info.get("degraded"):
            out.append(say("risk.degraded", lang, lane=lane, reason=info.get("degradation_reason")))
    if not refs:
        out.append(say("risk.no_prior", lang))
    return out
