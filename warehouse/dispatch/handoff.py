"""The `knowledge.handoff/v1` package (contract 000 §14.1): what a HARNESS Lead may run after a yes.

The package is never executed here (`execution: "not_executed"`, KD-6): it proposes the host's
agent-team tool calls — `team_task_create` + `send_message` for a member of the current team,
`spawn_teammate` (a replica briefed from the historical actor) + the task + the message for a DSH
actor — and none at all for an AutoClaw agent or a Claude Code/Codex session (`external_handoff`: a
package only, with the tool's resume command for the latter; nothing is ever written to AutoClaw or
launched). Tool arguments carry the task and a pointer to the context pack, never indexed text.
"""

from __future__ import annotations

import re

from warehouse.cards.texts import Lang, say
from warehouse.dispatch.contract import (
    ContextPack,
    DispatchRequest,
    Handoff,
    HandoffTarget,
    HandoffTask,
    TargetOut,
    ToolCall,
)

REQUIRES = ("team_task", "spawn_replica", "external_handoff")  # who may run a mode's package: cards/texts.py
TOOL_NAMES = {"claude_code": "Claude Code", "codex": "Codex"}


def _slug(text: str | None, fallback: str) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", (text or "").lower()).strip("-")
    return s[:40].rstrip("-") or fallback


def _replica_name(target: TargetOut) -> str:
    """A root session's name says its task and day (ak_actor.display_name); its replica is named by what it
    is — preset and workspace — and the session it continues, which fits a teammate name and stays unique."""
    if target.kind == "root_session":
        what = " ".join(target.name.split(" · ")[:2]) if target.name else ""
        return f"{_slug(what, 'actor')}-{target.actor_id.rsplit('-', 1)[-1][:8]}"
    return _slug(target.name, "actor")


def _brief(req: DispatchRequest, pack_ref: str, lang: Lang = "en") -> str:
    lines = [req.task.summary()]
    if req.task.acceptance:
        lines.append(say("brief.acceptance", lang, items="; ".join(req.task.acceptance)))
    if req.task.constraints:
        lines.append(say("brief.constraints", lang, items="; ".join(req.task.constraints)))
    if req.task.deadline:
        lines.append(say("brief.deadline", lang, deadline=req.task.deadline.isoformat()))
    lines.append(say("brief.context", lang, pack=pack_ref))
    return "\n".join(lines)


def build(req: DispatchRequest, target: TargetOut, pack: ContextPack, assignment_id: str,
          dispatch_id: str, lang: Lang = "en") -> Handoff:
    """The package; its own words (the brief, the tool calls' texts, `requires`) in `lang`, the task's own."""
    mode = target.dispatch.mode
    pack_ref = say("brief.pack", lang, assignment_id=assignment_id)
    brief = _brief(req, pack_ref, lang)
    title = req.task.title or (req.task.text or req.task.description or "")[:80]
    name = target.name or target.actor_id
    message = say("call.new_task", lang, title=title, pack=pack_ref)
    calls: list[ToolCall] = []
    if mode == "spawn_replica":
        replica = "replica-" + _replica_name(target)
        calls = [
            ToolCall(tool="spawn_teammate", arguments={
                "name": replica,
                "description": say("call.replica", lang, actor_id=target.actor_id),
                "prompt": say("call.continue", lang, actor_id=target.actor_id, brief=brief)}),
            ToolCall(tool="team_task_create", arguments={"title": title, "details": brief, "owner": replica}),
            ToolCall(tool="send_message", arguments={"target": replica, "message": message}),
        ]
    elif mode == "team_task":
        calls = [
            ToolCall(tool="team_task_create", arguments={"title": title, "details": brief, "owner": name}),
            ToolCall(tool="send_message", arguments={"target": name, "message": message}),
        ]
    return Handoff(
        assignment_id=assignment_id, dispatch_id=dispatch_id,
        target=HandoffTarget(actor_id=target.actor_id, name=target.name, kind=target.kind, dispatch=target.dispatch,
                             origin=target.origin, resume=target.resume),
        task=HandoffTask(title=req.task.title, text=req.task.summary(), acceptance=list(req.task.acceptance),
                         constraints=list(req.task.constraints),
                         deadline=req.task.deadline.isoformat() if req.task.deadline else None),
        tool_calls=calls, requires=_requires(mode, target, lang), context_pack=pack)


def _requires(mode: str, target: TargetOut, lang: Lang = "en") -> str:
    if mode == "external_handoff" and target.resume is not None:
        r = target.resume
        return say("requires.resume", lang, tool=TOOL_NAMES[r.tool], command=r.command,
                   cwd=r.cwd or say("requires.its_folder", lang))
    return say(f"requires.{mode}", lang) if mode in REQUIRES else say("requires.nothing", lang)
