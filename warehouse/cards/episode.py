"""The episode card (`knowledge_get_episode`): goal, constraints, actions, result, errors, people, evidence.

The structure comes from the marts (`ak_episode`, `ak_event`, `ak_artifact`, `ak_skill_use`,
`int_dsh_episodes` / `int_ac_episodes`, `stg_dsh_sessions`); the full text (the transcript) is read
from the source now, read-only, through the extractor's readers (`extract/dsh/read.py`,
`extract/autoclaw/read.py`) with the extract redaction rules. When the source is gone the card says
so (`KNOWLEDGE_SOURCE_UNAVAILABLE` in `notices`, `source_read.read_from = "index"`) and shows the
text the index holds instead.

An episode opens by its `ak_episode.episode_id`, by any search item / evidence id that is an
`ak_document.doc_key` of the episodes lane, or by an `ak_event.event_id`; the latter two set `focus`.
A memory whose source entry belongs to no episode opens as a memory card.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.cards.contract import (
    Actions,
    Actor,
    Artifact,
    Constraints,
    Cut,
    EpisodeCard,
    EpisodeSkill,
    ErrorEvent,
    Evidence,
    Focus,
    MemoryCard,
    Notice,
    Participant,
    Result,
    Retry,
    SourceRead,
    SourceRefs,
    Step,
    ToolCount,
    TranscriptEvent,
    Workspace,
)
from warehouse.cards.lookup import Budget, iso, json_or_none, not_found, one, rows
from warehouse.cards.task_fit import retry_pairs
from warehouse.cards.texts import Lang, say
from warehouse.core.errors import KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings

SOURCE_CODES = ("KNOWLEDGE_SOURCE_UNAVAILABLE", "KNOWLEDGE_SOURCE_CORRUPT", "KNOWLEDGE_SOURCE_LOCKED",
                "KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED")


def resolve_episode(con: duckdb.DuckDBPyConnection, index_rev: str,
                    ident: str) -> tuple[str | None, Focus | None, dict[str, Any] | None]:
    """(episode_id, focus, memory document) for an episode, document or event id."""
    if one(con, "SELECT 1 AS x FROM ak_episode WHERE episode_id = ?", [ident]):
        return ident, None, None
    doc = one(con, "SELECT doc_key, kind, episode_id, session_id, seq, account, title, text FROM ak_document "
                   "WHERE doc_key = ? AND lane = 'episodes'", [ident])
    ev = None
    if doc is None:
        ev = one(con, "SELECT event_id, episode_id, session_id, seq FROM ak_event WHERE event_id = ?", [ident])
        if ev is None:
            mem = one(con, "SELECT memory_key, source_session_id, source_entry_id FROM ak_memory WHERE memory_key = ?",
                      [ident])
            if mem is None:
                raise not_found("episode", ident, index_rev,
                                "ids are ak_episode.episode_id or a search item/evidence id (ak_document.doc_key)")
            ev = one(con, "SELECT event_id, episode_id, session_id, seq FROM ak_event WHERE session_id = ? "
                          "AND entry_id = ?", [mem["source_session_id"], mem["source_entry_id"]])
            if ev is None or ev["episode_id"] is None:
                return None, None, {"doc_key": ident, "memory_key": ident, "kind": "memory", **mem}
    row = doc or ev
    assert row is not None
    episode_id = row["episode_id"]
    if episode_id is None and row["session_id"] is not None:  # e.g. a memory: its source event's episode
        found = one(con, "SELECT episode_id FROM ak_event WHERE session_id = ? AND seq = ?",
                    [row["session_id"], row["seq"]])
        episode_id = found["episode_id"] if found else None
    if episode_id is None:
        if doc is not None and doc["kind"] == "memory":
            return None, None, doc
        raise not_found("episode", ident, index_rev, "this event belongs to no episode (context before a request)")
    return episode_id, Focus(id=ident, session_id=row["session_id"], seq=row["seq"]), (
        doc if doc is not None and doc["kind"] == "memory" else None)


def memory_card(con: duckdb.DuckDBPyConnection, index_rev: str, ident: str, doc: dict[str, Any],
                budget: Budget, lang: Lang = "en") -> MemoryCard:
    text = doc.get("text")
    if text is None:
        d = one(con, "SELECT title, text FROM ak_document WHERE doc_key = ?", [ident]) or {}
        text, doc = d.get("text"), {**doc, "title": d.get("title")}
    mem = one(con, "SELECT * FROM ak_memory WHERE memory_key = ? OR (account = ? AND source_session_id = ? "
                   "AND title = ?) ORDER BY memory_key LIMIT 1",
              [ident, doc.get("account"), doc.get("session_id"), doc.get("title")]) or {}
    card = MemoryCard(index_rev=index_rev, id=ident, memory_key=mem.get("memory_key"),
                      title=budget.text("title", doc.get("title") or mem.get("title"), 300),
                      text=budget.text("text", text), lifecycle=mem.get("lifecycle"), is_current=mem.get("is_current"),
                      source_session_id=mem.get("source_session_id") or doc.get("session_id"),
                      source_entry_id=mem.get("source_entry_id"),
                      notices=[Notice(code="no_episode", message=say("episode.no_episode", lang))])
    card.truncated = budget.cuts
    return card


def episode_card(con: duckdb.DuckDBPyConnection, index_rev: str, paths: Paths, settings: Settings, ident: str,
                 budget: Budget, lang: Lang = "en") -> EpisodeCard | MemoryCard:
    """`lang`: the language of the card's own texts (notices, cut notes), decided once by the caller."""
    episode_id, focus, memory = resolve_episode(con, index_rev, ident)
    if episode_id is None:
        assert memory is not None
        return memory_card(con, index_rev, ident, memory, budget, lang)
    e = one(con, "SELECT * FROM ak_episode WHERE episode_id = ?", [episode_id])
    assert e is not None
    from_dsh = e["source"] == "harness"  # the wire value of a DSH session
    detail = one(con, f"SELECT * FROM {'int_dsh_episodes' if from_dsh else 'int_ac_episodes'} WHERE episode_id = ?",
                 [episode_id]) or {}
    session = one(con, "SELECT * FROM stg_dsh_sessions WHERE session_id = ?", [e["session_id"]]) if from_dsh else None
    actor = one(con, "SELECT actor_id, display_name, kind FROM ak_actor WHERE actor_id = ?", [e["actor_id"]]) or {
        "actor_id": e["actor_id"]}
    evs = rows(con, """
        SELECT ev.event_id, ev.seq, ev.time, ev.kind, ev.role, ev.tool_name, ev.is_error, ev.target, ev.skill_name,
               d.doc_key, d.text
        FROM ak_event ev
        LEFT JOIN ak_document d ON d.session_id = ev.session_id AND d.seq = ev.seq AND d.lane = 'episodes'
        WHERE ev.episode_id = ? AND NOT ev.is_duplicate ORDER BY ev.seq, ev.event_id""", [episode_id])
    arts = [_artifact(a) for a in rows(con, "SELECT * FROM ak_artifact WHERE episode_id = ? ORDER BY seq, path",
                                       [episode_id])]
    card = EpisodeCard(
        index_rev=index_rev, episode_id=episode_id, opened_as=ident, focus=focus, source=e["source"],
        actor=Actor(**actor),
        workspace=Workspace(workspace_id=e["workspace_id"], path=e["workspace_path"], episodes=1)
        if (e["workspace_id"] or e["workspace_path"]) else None,
        title=budget.text("title", e["title"], 300), started_at=iso(e["started_at"]), ended_at=iso(e["ended_at"]),
        duration_s=e["duration_s"], model=e["model"], goal=budget.text("goal", detail.get("goal_text")),
        constraints=_constraints(session, evs, budget),
        actions=_actions(e, detail, evs, budget),
        result=Result(outcome=e["outcome"], status=detail.get("status") or e["outcome"],
                      final_answer=budget.text("final_answer", detail.get("final_answer")),
                      deliverables=[a for a in arts if a.kind == "deliverable"],
                      workspace_changes=[a for a in arts if a.kind != "deliverable" and a.change != "written"]),
        errors=[ErrorEvent(seq=x["seq"], tool=x["tool_name"], text=budget.text("errors[].text", x["text"], 600),
                           evidence=_ev(x)) for x in evs if x["role"] == "tool_result" and x["is_error"]],
        retries=[Retry(tool=r["tool"], failed_seq=r["failed_seq"], retry_seq=r["retry_seq"],
                       evidence=[Evidence(kind="event", id=r["failed_event"]), Evidence(kind="event",
                                                                                      id=r["retry_event"])])
                 for r in retry_pairs(con, [episode_id])],
        compactions=int(e["compactions"] or 0),
        skills=[EpisodeSkill(name=u["skill_name"], via=u["via"], seq=u["seq"], skill_id=u["skill_id"])
                for u in rows(con, "SELECT * FROM ak_skill_use WHERE episode_id = ? ORDER BY seq, skill_use_id",
                              [episode_id])],
        participants=_participants(con, e),
        artifacts=arts,
        memories=[Evidence(kind="document", id=m["doc_key"], note=m["title"]) for m in rows(con, """
            SELECT d.doc_key, left(d.title, 120) AS title FROM ak_document d JOIN ak_event ev
              ON ev.session_id = d.session_id AND ev.seq = d.seq
            WHERE d.kind = 'memory' AND ev.episode_id = ? ORDER BY d.doc_key""", [episode_id])],
        source_refs=SourceRefs(evidence_ref=e["evidence_ref"], session_id=e["session_id"], seq_first=e["seq_first"],
                               seq_last=e["seq_last"], account=e["account"], run_id=e["run_id"],
                               entry_ids=list(e["entry_ids"] or [])),
        source_read=SourceRead(read_from="index", available=False),
    )
    _transcript(card, paths, settings, session, evs, budget, lang)
    card.truncated = budget.cuts
    return card


def _ev(x: dict[str, Any]) -> Evidence:
    return Evidence(kind="document", id=x["doc_key"]) if x.get("doc_key") else Evidence(kind="event",
                                                                                      id=x["event_id"])


def _artifact(a: dict[str, Any]) -> Artifact:
    return Artifact(path=a["path"], change=a["change"], kind=a["kind"], seq=a["seq"], description=a["description"],
                    evidence=Evidence(kind="artifact", id=a["artifact_id"], note=f"{a['session_id']}#seq={a['seq']}"))


def _steps(raw: Any, budget: Budget, name: str) -> list[Step]:
    items = raw.get("steps") if isinstance(raw, dict) else raw
    out = []
    for it in items if isinstance(items, list) else []:
        if isinstance(it, dict) and isinstance(it.get("text"), str):
            out.append(Step(text=budget.text(name, it["text"], 500) or "", status=it.get("status")))
        elif isinstance(it, str):
            out.append(Step(text=budget.text(name, it, 500) or ""))
    return out


def _constraints(session: dict[str, Any] | None, evs: list[dict[str, Any]], budget: Budget) -> Constraints:
    s = session or {}
    changes = [Step(text=budget.text("constraints.goal_changes", x["text"], 500) or "", status=f"seq {x['seq']}")
               for x in evs if x["kind"] == "goal/change" and x["text"]]
    return Constraints(todos=_steps(json_or_none(s.get("todos_json")), budget, "constraints.todos"),
                       plan=_steps(json_or_none(s.get("plan_json")), budget, "constraints.plan"),
                       goal_changes=changes)


def _actions(e: dict[str, Any], detail: dict[str, Any], evs: list[dict[str, Any]], budget: Budget) -> Actions:
    counts: dict[str, int] = {}
    for x in evs:
        if x["role"] == "tool_call" and x["tool_name"]:
            counts[x["tool_name"]] = counts.get(x["tool_name"], 0) + 1
    commands = [budget.text("actions.commands", c, 500) or "" for c in (detail.get("commands") or [])]
    return Actions(tool_calls=int(e["tool_calls"] or 0),
                   tools=[ToolCount(name=k, calls=v)
                          for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))],
                   files=list(detail.get("files") or []), commands=commands)


def _participants(con: duckdb.DuckDBPyConnection, e: dict[str, Any]) -> list[Participant]:
    out: dict[str, Participant] = {}
    if e["source"] == "autoclaw":
        for p in rows(con, """
                SELECT p.name, p.reason, p.outcome, 'actor:autoclaw:agent:' || p.account || ':' || p.agent_id AS aid
                FROM stg_ac_participations p WHERE p.account = ? AND p.run_id = ? ORDER BY p.name, p.agent_id""",
                      [e["account"], e["run_id"]]):
            known = one(con, "SELECT actor_id FROM ak_actor WHERE actor_id = ?", [p["aid"]])
            out[p["name"]] = Participant(name=p["name"], actor_id=known["actor_id"] if known else None,
                                         role=p["reason"], outcome=p["outcome"])
    for name in e["participants"] or []:
        if name in out:
            continue
        known = one(con, "SELECT actor_id, kind FROM ak_actor WHERE display_name = ? AND "
                         "(parent_session_id = ? OR account IS NOT DISTINCT FROM ?) ORDER BY actor_id LIMIT 1",
                    [name, e["session_id"], e["account"]])
        out[name] = Participant(name=name, actor_id=known["actor_id"] if known else None,
                                role=known["kind"] if known else "delegate")
    return [out[k] for k in sorted(out)]


def _transcript(card: EpisodeCard, paths: Paths, settings: Settings, session: dict[str, Any] | None,
                evs: list[dict[str, Any]], budget: Budget, lang: Lang = "en") -> None:
    """Full text from the source (read-only, redacted); the index's text when the source is gone."""
    refs = card.source_refs
    try:
        if card.source == "harness":
            from warehouse.extract.dsh.read import read_session_events  # the extract stack, on use only

            got = read_session_events(paths.dsh_home, settings, refs.session_id, refs.seq_first, refs.seq_last,
                                      (session or {}).get("rel_path"))
            refs.log_path = str(got.path)
            events = [TranscriptEvent(seq=x["seq"], time=_ms(x.get("time")), role=x["role"], kind=x["kind"],
                                      tool=x.get("tool_name"), is_error=x.get("is_error"),
                                      text=x.get("text") or x.get("command") or x.get("arguments")
                                      or x.get("reasoning")) for x in got.events]
        else:
            from warehouse.extract.autoclaw.read import account_db, read_entries

            got_entries = read_entries(paths.autoclaw_root, settings, refs.account or "", refs.session_id,
                                       refs.entry_ids)
            refs.log_path = str(account_db(paths.autoclaw_root, refs.account or ""))
            events = [TranscriptEvent(seq=x["session_seq"], time=x.get("committed_at"),
                                      role=x["entry_type"] or "other", kind=x["entry_type"], tool=x.get("tool_name"),
                                      is_error=(x.get("tool_status") in ("error", "failed"))
                                      or bool(x.get("tool_error")) or None,
                                      text=x.get("text") or x.get("tool_error") or x.get("tool_input"))
                      for x in got_entries]
        card.source_read = SourceRead(read_from="source", available=True)
    except KnowledgeError as err:
        if err.code not in SOURCE_CODES:
            raise
        card.source_read = SourceRead(read_from="index", available=False, code=err.code)
        card.notices.append(Notice(code=err.code, message=say("episode.from_index", lang, error=err.message)))
        events = [TranscriptEvent(seq=x["seq"], time=iso(x["time"]), role=x["role"], kind=x["kind"],
                                  tool=x["tool_name"], is_error=x["is_error"], text=x["text"]) for x in evs]
    _fit(card, events, budget, lang)


def _ms(v: Any) -> str | None:
    if v is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(v / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fit(card: EpisodeCard, events: list[TranscriptEvent], budget: Budget, lang: Lang = "en") -> None:
    """Keep the transcript within max_chars: each text capped, then events until the budget is spent;
    opened on a focus event, the window starts just before it."""
    card.transcript_total = len(events)
    start = 0
    if card.focus is not None and card.focus.seq is not None:
        idx = next((i for i, x in enumerate(events) if x.seq == card.focus.seq), 0)
        start = max(0, idx - 2)
    per_event = max(400, budget.max_chars // 8)
    used, kept = 0, []
    for x in events[start:]:
        text = budget.text("transcript[].text", x.text, per_event) if x.text else None
        size = len(text or "")
        if kept and used + size > budget.max_chars:
            break
        used += size
        kept.append(x.model_copy(update={"text": text}))
    card.transcript = kept
    if start or len(kept) < len(events):
        budget.cuts.append(Cut(field="transcript", shown_chars=len(kept), total_chars=len(events),
                               rest=say("episode.events_cut", lang, first=start + 1, last=start + len(kept),
                                        total=len(events), rest=budget.rest(max(budget.max_chars * 4, 200)))))
