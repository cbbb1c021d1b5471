"""`knowledge_dispatch` v1: plan a hand-over, and on an explicit commit record it (contract 000 §14, FR-7).

- dry run (the default) and `commit: false`: the plan only; nothing is written anywhere (KD-1);
- commit (`dry_run: false`, `commit: true`, and `confirm: true` while `dispatch.require_confirmation`):
  one outbox record = one `ak_assignment` row (`recorded_plan`) + one `knowledge.handoff/v1`
  package (KD-2); the same `dispatch_id` with the same request returns the record unchanged, with a
  different request `KNOWLEDGE_DISPATCH_CONFLICT`;
- nothing is ever executed, spawned or sent, and no source is written (KD-6).

Without a `dispatch_id` the id is derived from the request, so repeating a request is idempotent too.
Same request + same index → same plan (timestamps aside).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from warehouse.cards.texts import Lang, say, word
from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.language import output_language
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import query_sql
from warehouse.dispatch import context_pack, handoff
from warehouse.dispatch.contract import (
    AssignmentOut,
    DispatchRequest,
    DispatchResponse,
    Evidence,
    Message,
    Suggestion,
    TargetOut,
    parse_dispatch_request,
    response_dict,
)
from warehouse.dispatch.target import actor_row, match_skills, require_actor, target_out, top_skill_user
from warehouse.home import outbox
from warehouse.search.access import Scope, invisible, view_on
from warehouse.search.contract import MAX_QUERY_CHARS, parse_request
from warehouse.search.contract import response_dict as search_dict
from warehouse.search.service import SearchEngine


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def dispatch(paths: Paths, settings: Settings, engine: SearchEngine, request: dict[str, Any] | str,
             requested_by: str, scope: Scope | None = None, lang: Lang | None = None) -> dict[str, Any]:
    """`scope`: the caller's access scope (None with access off): targets, context and package hold to it.
    `lang`: the plan's one language (cards/texts.py); None decides it here, once the task is known:
    `ui.language`, else the task's letters, else the locale — as the plan's search and the CLI decide it."""
    req = parse_dispatch_request(request)
    if lang is None:
        lang = output_language(settings.ui.language, req.task.summary())
    request_hash = "sha256:" + hashlib.sha256(_canonical(req.plan_key()).encode("utf-8")).hexdigest()
    dispatch_id = req.dispatch_id or "auto-" + request_hash[7:27]
    assignment_id = outbox.assignment_id_for(dispatch_id)
    existing = outbox.read_one(paths, assignment_id)
    if existing is not None and existing.get("request_hash") != request_hash:
        raise _conflict(dispatch_id, assignment_id)
    if existing is not None and req.commits:
        if scope is not None and existing.get("assignment", {}).get("requested_by") != requested_by:
            raise _conflict(dispatch_id, assignment_id)  # another principal's record: not theirs to see
        return _replayed(existing)

    resp = plan(paths, settings, engine, req, dispatch_id, assignment_id, scope, lang)
    if existing is not None:
        resp.warnings.append(Message(code=Code.DISPATCH_RECORDED.value,
                                     message=say("plan.recorded", lang, dispatch_id=dispatch_id,
                                                 assignment_id=assignment_id)))
    if not req.commits or resp.target is None:  # a refusal (no fitting actor) carries its NOT_FOUND error
        return response_dict(resp)
    refusal = _commit_refusal(settings, req, resp, lang)
    if refusal is not None:
        resp.errors.append(refusal)
        return response_dict(resp)
    assert resp.target is not None and resp.handoff is not None
    created_at = _now()
    path = outbox.record_path(paths, assignment_id)
    resp = resp.model_copy(update={"mode": "commit", "assignment": AssignmentOut(
        assignment_id=assignment_id, dispatch_id=dispatch_id, actor_id=resp.target.actor_id,
        requested_by=requested_by, created_at=created_at, created=True, package_file=str(path))})
    doc = response_dict(resp)
    record = {
        "schema": outbox.RECORD_SCHEMA, "request_hash": request_hash, "request": req.plan_key(),
        "assignment": _assignment_row(req, resp, request_hash, requested_by, created_at, path.name),
        "handoff": doc["handoff"], "response": doc,
    }
    created, on_disk = outbox.write_once(paths, record)
    if created:
        return doc
    if on_disk.get("request_hash") != request_hash:  # another writer recorded this id a moment ago
        raise _conflict(dispatch_id, assignment_id)
    return _replayed(on_disk)


def _conflict(dispatch_id: str, assignment_id: str) -> KnowledgeError:
    return KnowledgeError(Code.DISPATCH_CONFLICT,
                          f"dispatch_id {dispatch_id!r} is already recorded ({assignment_id}) for a different request; "
                          "use a new dispatch_id", field="dispatch_id", assignment_id=assignment_id)


def _replayed(record: dict[str, Any]) -> dict[str, Any]:
    """KD-2: the recorded response, unchanged but for `assignment.created: false`."""
    doc = json.loads(json.dumps(record["response"]))
    doc["assignment"]["created"] = False
    return doc


def _commit_refusal(settings: Settings, req: DispatchRequest, resp: DispatchResponse,
                    lang: Lang = "en") -> Message | None:
    assert resp.target is not None
    info = resp.target.dispatch
    if not info.available:
        return Message(code=Code.DISPATCH_UNAUTHORIZED.value, field="target",
                       message=say("plan.unavailable", lang, mode=info.mode, reasons="; ".join(info.reasons)))
    if settings.dispatch.require_confirmation and not req.confirm:
        return Message(code=Code.DISPATCH_UNAUTHORIZED.value, field="confirm", message=say("plan.confirm", lang))
    return None


def _assignment_row(req: DispatchRequest, resp: DispatchResponse, request_hash: str, requested_by: str,
                    created_at: str, package_file: str) -> dict[str, Any]:
    t = resp.target
    assert t is not None
    return {
        "assignment_id": resp.handoff.assignment_id if resp.handoff else None, "dispatch_id": resp.dispatch_id,
        "actor_id": t.actor_id, "actor_name": t.name, "actor_kind": t.kind, "requested_by": requested_by,
        "task_title": req.task.title,
        "task_text_hash": "sha256:" + hashlib.sha256(req.task.summary().encode("utf-8")).hexdigest(),
        "status": "recorded_plan", "dispatch_mode": t.dispatch.mode, "choice": t.choice, "why": t.why,
        "evidence": resp.evidence.model_dump(mode="json"),
        "deadline": req.task.deadline.isoformat() if req.task.deadline else None,
        "created_at": created_at, "request_hash": request_hash, "package_file": package_file,
        "index_rev": resp.index_rev,
    }


def plan(paths: Paths, settings: Settings, engine: SearchEngine, req: DispatchRequest, dispatch_id: str,
         assignment_id: str, scope: Scope | None = None, lang: Lang = "en") -> DispatchResponse:
    """The plan: target, context pack, evidence, the package; writes nothing. Under access control
    only actors the principal sees in full are targets, and a plan naming anything it cannot see is
    refused like a plan without a fitting actor (fail closed). `lang`: the language of the plan's own
    texts (why, reasons, risks, the pack's notes, the package's brief, warnings and errors)."""
    text = req.task.summary()
    found = engine.search(parse_request({"schema": "knowledge.search/v1", "query": text[:MAX_QUERY_CHARS],
                                         "mode": "find_agent", "limit": 10}), scope)
    search = search_dict(found)
    con, gen = engine.reader()
    view = view_on(con, scope) if scope is not None else None
    seen: Callable[[str], bool] = (lambda a: True) if view is None else (lambda a: a in view.actors)
    try:
        warnings: list[Message] = [Message(code=w["code"], message=f"{w['lane']}: {w['message']}")
                                   for w in search.get("warnings", [])]
        match = match_skills(con, text)
        named, implied = match.named, match.implied
        if view is not None:  # another's skill is never named, suggested or looked up for this principal
            mine = {r[0] for r in db.run(con, query_sql("access_skill_names"), [sorted(view.skills)]).fetchall()}
            named, implied = [n for n in named if n in mine], [n for n in implied if n in mine]
        skills = [*named, *implied]
        target: TargetOut | None = None
        if req.explicit_actor:
            if not seen(req.explicit_actor):
                raise KnowledgeError(Code.NOT_FOUND, f"target: no actor {req.explicit_actor!r} in the index "
                                     "(see ak_actor)", field="target.actor_id")
            target = target_out(settings.dispatch, require_actor(con, req.explicit_actor), "explicit",
                                [say("why.explicit", lang)], lang)
        else:
            for choice, names in (("named_skill", named), ("implied_skill", implied)):
                if not names or target is not None:
                    continue
                top = top_skill_user(con, names)
                if top is not None and not seen(top[0]):
                    continue  # its top user is not this principal's to see: the search decides
                if top is None:
                    warnings.append(Message(code=Code.NOT_FOUND.value,
                                            message=say("plan.unused_skills", lang, skills=", ".join(names))))
                    continue
                target = target_out(settings.dispatch, require_actor(con, top[0]), choice,
                                    [say(f"why.{choice}", lang, skills=", ".join(names)),
                                     say("why.top_user", lang, n=top[1])], lang)
            strength = (search.get("match") or {}).get("level", "strong")
            if target is None and search.get("actors") and strength != "strong":  # FR-7: no weak guess
                warnings.append(Message(code=Code.WEAK_MATCH.value,
                                        message=say("plan.weak", lang, strength=word("strength", strength, lang))))
            elif target is None:
                for a in search.get("actors", []):
                    row = actor_row(con, a["actor_id"])
                    if row is not None:
                        target = target_out(settings.dispatch, row, "search",
                                            [say("why.search", lang), *a.get("why", [])], lang)
                        break
        pack, evidence = context_pack.build(con, req, search, target.actor_id if target else None, skills, lang)
    finally:
        con.close()
    if view is not None and invisible({"target": target.model_dump() if target else None,
                                       "context_pack": pack.model_dump(), "evidence": evidence.model_dump()}, view):
        target, evidence = None, Evidence()
        pack = pack.model_copy(update={"prior_episodes": [], "code_refs": [], "skills": [], "artifacts": []})
    resp = DispatchResponse(request_id=req.request_id, mode="dry_run", dispatch_id=dispatch_id,
                            index_rev=gen.index_rev, target=target, context_pack=pack, evidence=evidence,
                            handoff=None, warnings=warnings)
    if target is None:
        resp.errors.append(Message(code=Code.NOT_FOUND.value, field="target", message=say("plan.no_actor", lang)))
        resp.suggestion = Suggestion(name=_slug(req.task.title or text), description=text[:300], skills=skills)
        return resp
    resp.handoff = handoff.build(req, target, pack, assignment_id, dispatch_id, lang)
    return resp


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].rstrip("-") or "new-actor"


# -- the outbox -------------------------------------------------------------------------------------
def list_assignments(paths: Paths) -> dict[str, Any]:
    records, bad = outbox.read_all(paths)
    return {"outbox": str(paths.outbox), "count": len(records),
            "assignments": [r["assignment"] for r in records],
            "warnings": [{"code": Code.INTERNAL.value, "message": f"unreadable outbox file {name}"} for name in bad]}


def show(paths: Paths, ident: str) -> dict[str, Any]:
    """One record by assignment id or dispatch id: the assignment row and its handoff package."""
    for aid in ((ident,) if ident.startswith("assign:") else (outbox.assignment_id_for(ident),)):
        record = outbox.read_one(paths, aid)
        if record is not None:
            return {"assignment": record["assignment"], "handoff": record["handoff"],
                    "package_file": str(outbox.record_path(paths, aid))}
    raise KnowledgeError(Code.NOT_FOUND, f"no recorded dispatch {ident!r} in the outbox", field="id")
