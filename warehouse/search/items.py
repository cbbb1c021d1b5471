"""Lane items of an answer: the fused documents as episode, code and skill items with snippet and why.

Fusion decides which documents and in what order; this fetches their details in one point
lookup by `doc_id` (an index scan, ADR 0003 "Serving") and writes each as its lane's item of
the contract (§4), with the terms it matched as its why-text and a snippet around them —
unless the caller asked for locators only (`provenance: locator`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import duckdb

from warehouse.core.sqlfiles import render
from warehouse.search.contract import (
    LANES,
    CodeItem,
    EpisodeItem,
    EpisodeSession,
    ItemActor,
    SearchRequest,
    SkillItem,
    UsedBy,
)
from warehouse.search.messages import Lang, msg, outcome
from warehouse.search.snippets import ELLIPSIS, make_snippet


def iso(v: Any) -> str | None:
    """A timestamp as the contract writes it: ISO 8601, UTC as `Z`."""
    if v is None:
        return None
    if isinstance(v, datetime):
        return v.isoformat().replace("+00:00", "Z")
    return str(v)


def read_details(cur: duckdb.DuckDBPyConnection, doc_ids: list[int]) -> dict[int, dict[str, Any]]:
    """Everything a response item shows (sql/queries/search/item_details.sql), per document id. Needs only
    fusion's items, so the search reads it on a side cursor while the actor statement runs."""
    if not doc_ids:
        return {}
    res = cur.execute(render("item_details", doc_ids=",".join(str(int(d)) for d in doc_ids)))
    cols = [c[0] for c in res.description]
    return {row[0]: dict(zip(cols, row, strict=True)) for row in res.fetchall()}


def merged_descriptions(text: str) -> str:
    """A file list whose lines repeat one description (`a.conf — Move the site`, `b.md — Move the site`) as one
    line (`a.conf, b.md — Move the site`): the snippet shows the files once and the description once."""
    lines = text.split("\n")
    if len(lines) < 2 or " — " not in text:
        return text
    by_desc: dict[str, list[str]] = {}
    rest: list[str] = []
    for line in lines:
        path, sep, desc = line.partition(" — ")
        if sep and desc.strip():
            by_desc.setdefault(desc.strip(), []).append(path.strip())
        elif line.strip():
            rest.append(line)
    return "\n".join([f"{', '.join(paths)} — {desc}" for desc, paths in by_desc.items()] + rest)


def lane_items(cur: duckdb.DuckDBPyConnection, req: SearchRequest, fused: list[tuple],
               terms_by_doc: dict[tuple[str, int], list[str]], nominated: set[int],
               actor_names: dict[str, str],
               vec_by_doc: dict[tuple[str, int], float] | None = None,
               details: Mapping[int, dict[str, Any]] | None = None,
               passages: Mapping[tuple[str, int], int] | None = None, lang: Lang = "en") -> dict[str, list[Any]]:
    """Lane → its items, in fusion's order, their why-texts in `lang`; `nominated` episode documents stand
    for an actor profile's match; `actor_names`: actor id → display name; `vec_by_doc` (semantic on) adds
    `vec: 0.83` to `why`; `details`: read_details of (at least) these items, read here when not given;
    `passages`: (lane, doc_id) -> offset in the clean text of the passage that matched by meaning: without
    a lexical match, the snippet is that passage (the reason the item is here), else the window around the
    query's terms."""
    if details is None:
        details = read_details(cur, [int(r[1]) for r in fused])
    words = req.query.split()
    locator = req.provenance == "locator"
    items: dict[str, list[Any]] = {lane: [] for lane in LANES}
    for lane, doc_id, doc_key, rrf, rel, coverage, _rank, evidence, _actor in fused:
        d = details[doc_id]
        terms = [t.lstrip("=") for t in terms_by_doc.get((lane, doc_id), [])]
        pos = (passages or {}).get((lane, doc_id)) if not terms else None
        text = d["text"] or ""
        if d["kind"] == "artifact" and pos is None:
            text = merged_descriptions(text)
        snippet = None if locator else make_snippet(text, terms + words, req.budget.snippet_chars,
                                                    start_at=pos or 0)
        if snippet and pos:
            snippet = ELLIPSIS + snippet
        why = [msg("item.lexical", lang, terms=", ".join(terms[:6])),
               msg("item.coverage", lang, coverage=coverage)] if terms else []
        vec = (vec_by_doc or {}).get((lane, doc_id))
        if vec is not None:
            why.append(msg("item.vector", lang, similarity=vec))
        if lane == "episodes":
            if doc_id in nominated:  # an actor profile's evidence
                why.insert(0, msg("item.profile", lang))
            elif terms or vec is None:  # a vector-only match has no matching event text to point at
                why.insert(0, msg("item.fts_match", lang, event_type=d["event_type"]))
            if d["outcome"]:
                why.append(msg("item.outcome", lang, outcome=outcome(d["outcome"], lang)))
            items[lane].append(EpisodeItem(
                id=d["item_id"], session_id=d["session_id"] or "", seq=max(int(d["seq"] or 0), 0),
                event_type=d["event_type"] or d["kind"], event_id=d["event_id"],
                actor=ItemActor(id=d["actor_id"], name=actor_names.get(d["actor_id"])) if d["actor_id"] else None,
                time=iso(d["time"]), surface="indexed",
                snippet=snippet, score=round(rrf, 6), why=why,
                session=EpisodeSession(cwd=d["session_cwd"], workspace=d["workspace_id"] or d["workspace_path"],
                                       created_at=iso(d["session_created_at"]), agent_preset=d["session_preset"],
                                       title=d["session_title"], outcome=d["outcome"], live=False,
                                       persisted=True)))
        elif lane == "code":
            items[lane].append(CodeItem(
                id=d["item_id"], chunk_id=doc_key, path=d["path"], start_line=max(int(d["start_line"] or 1), 1),
                end_line=d["end_line"], workspace=d["workspace_id"], language=d["language"], symbol=d["symbol"],
                source_kind=d["source_kind"], provenance="stated", score=round(rel, 6), why=why,
                snippet=snippet))
        else:
            if evidence:  # used by episodes that answer this query, not only sharing words with it
                why.insert(0, msg("item.skill_evidence", lang, episodes=int(evidence), s="" if evidence == 1 else "s"))
            items[lane].append(SkillItem(
                id=d["item_id"], name=d["skill_name"] or d["title"], path=d["skill_path"],
                description=cut(d["skill_description"]), when_to_use=cut(d["skill_when_to_use"]),
                content_hash=d["skill_hash"], score=round(rrf, 6), why=why,
                used_by=[UsedBy(actor_id=u["actor_id"], episode_id=u["episode_id"], uses=int(u["uses"]))
                         for u in d["skill_used_by"] or []]))
    return items


def cut(text: str | None, chars: int = 300) -> str | None:
    """Lane items carry a short description; the whole text is the skill card's (spec FR-5.9)."""
    if text is None or len(text) <= chars:
        return text
    return text[: chars - 1].rsplit(" ", 1)[0] + "…"
