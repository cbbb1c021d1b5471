"""Who gets the task (contract 000 §14 rules 1–2, KD-3, KD-4; spec 001 §12 rule 8).

Order: an explicit actor (it must exist in `ak_actor`); else a skill the task names (its exact
name) or implies (every word of a multi-word name appears in the task) → the actor with the most
`ak_skill_use` of it; else the best actor `knowledge_search` returns for the task, when the search's
answer is `strong` (search/match.py: a weak or absent match chooses no one, FR-7). Nothing fits →
None, and the caller refuses honestly: no actor is ever invented.

`dispatch.available` is the truth about this warehouse, never a promise (KD-4): the settings must
allow the mode and what the mode needs must exist (a replica needs the actor's sessions in the
index, a team task the team's lead session, an external handoff an AutoClaw agent or a Claude Code/Codex
session, whose package carries that tool's resume command).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import duckdb

from warehouse.cards.texts import Lang, say
from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Dispatch
from warehouse.core.sqlfiles import query_sql
from warehouse.dispatch.contract import DispatchInfo, Resume, TargetOut, TargetSkill

_WORD = re.compile(r"\w+")
TOOL_ORIGINS = ("claude_code", "codex")  # sessions a person resumes in their own tool (issue 26)


@dataclass
class SkillMatch:
    named: list[str] = field(default_factory=list)  # in order of first mention
    implied: list[str] = field(default_factory=list)


def match_skills(con: duckdb.DuckDBPyConnection, text: str) -> SkillMatch:
    """Live skills the task text names exactly, and those whose every name word it contains."""
    low = text.lower()
    words = set(_WORD.findall(low))
    found: list[tuple[int, str]] = []
    implied = []
    for (name,) in con.execute(query_sql("dispatch_skill_names")).fetchall():
        m = re.search(r"(?<![\w-])" + re.escape(name.lower()) + r"(?![\w-])", low)
        if m:
            found.append((m.start(), name))
            continue
        parts = [p for p in re.split(r"[-_.]+", name.lower()) if p]
        if len(parts) >= 2 and all(p in words for p in parts):
            implied.append(name)
    return SkillMatch(named=[n for _pos, n in sorted(found)], implied=sorted(implied))


def actor_row(con: duckdb.DuckDBPyConnection, actor_id: str) -> dict[str, Any] | None:
    cur = db.run(con, query_sql("dispatch_actor"), [actor_id])
    row = cur.fetchone()
    if row is None:
        return None
    return dict(zip([d[0] for d in cur.description], row, strict=True))


def require_actor(con: duckdb.DuckDBPyConnection, actor_id: str) -> dict[str, Any]:
    row = actor_row(con, actor_id)
    if row is None:
        raise KnowledgeError(Code.NOT_FOUND, f"target: no actor {actor_id!r} in the index (see ak_actor)",
                             field="target.actor_id")
    return row


def top_skill_user(con: duckdb.DuckDBPyConnection, skills: list[str]) -> tuple[str, int] | None:
    """KD-3: the actor with the most recorded uses of `skills` (ties: newest use, then id)."""
    row = db.run(con, query_sql("dispatch_skill_users"), [skills]).fetchone()
    return (row[0], int(row[1])) if row else None


def availability(settings: Dispatch, actor: dict[str, Any], lang: Lang = "en") -> DispatchInfo:
    """KD-4: what this warehouse can really plan for this actor now (`reasons` in `lang`)."""
    mode = actor["dispatch_mode"]
    reasons = []
    if not settings.enabled:
        reasons.append(say("reason.disabled", lang))
    elif not settings.allows(mode):
        reasons.append(say("reason.mode_off", lang, mode=mode))
    if mode == "spawn_replica" and not actor.get("session_ids"):
        reasons.append(say("reason.no_session", lang))
    if mode == "team_task" and not actor.get("parent_session_id"):
        reasons.append(say("reason.no_lead", lang))
    if mode == "external_handoff" and actor.get("source") != "autoclaw" and actor.get("origin") not in TOOL_ORIGINS:
        reasons.append(say("reason.external", lang))
    return DispatchInfo(mode=mode, available=not reasons, reasons=reasons)


def resume_of(actor: dict[str, Any]) -> Resume | None:
    """The resume command of a Claude Code or Codex actor: its own session (a subagent's: its parent's, the
    session a person can reopen), in the folder it ran in."""
    origin = actor.get("origin")
    if origin not in TOOL_ORIGINS:
        return None
    session = actor.get("parent_session_id") if actor.get("kind") == "subagent" else actor.get("session_id")
    if not session:
        return None
    command = f"claude --resume {session}" if origin == "claude_code" else f"codex resume {session}"
    return Resume(tool=origin, session_id=session, command=command, cwd=actor.get("workspace_path"))


def target_out(settings: Dispatch, actor: dict[str, Any], choice: str, why: list[str],
               lang: Lang = "en") -> TargetOut:
    skills = [TargetSkill(name=s["name"], uses=int(s["uses"])) for s in (actor.get("top_skills") or [])]
    origin = actor.get("origin") if actor.get("origin") in TOOL_ORIGINS else None
    return TargetOut(actor_id=actor["actor_id"], name=actor.get("display_name"), kind=actor["kind"],
                     source=actor["source"], choice=choice, why=why, skills=skills,
                     dispatch=availability(settings, actor, lang), origin=origin, resume=resume_of(actor))
