"""The response-side steps of access control (issue 16), each a no-op unless a `View` is given.

- `hold_actors`: actor rows only of actors the principal sees in full (their stats, context and top
  skills are aggregates over every episode of theirs, so a partly visible actor is not ranked).
- `trim`: the late-binding security trim — the final items are re-checked against the live sources
  (extract/live.py); an item whose access cannot be confirmed is not shown, and its lane says
  only that items were trimmed for safety (no id, no count).
- `hint`: the content-free hidden hint — which source systems hold a relevant item the caller
  cannot see, and which other configured principal sees it.
- `hold_usage`: a skill item's `used_by` keeps the actors and episodes the principal sees.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future
from typing import Any

import duckdb

from warehouse.core import db
from warehouse.core.errors import Code
from warehouse.core.sqlfiles import query_sql, render
from warehouse.search.access import Catalog, View
from warehouse.search.contract import HiddenHint, LaneWarning, SearchResponse
from warehouse.search.messages import Lang, msg

PLACES_MAX = 20_000  # document places remembered per view (guard._places)
TRIM_MESSAGE = msg("access.trimmed", "en")


def hold_actors(actor_rows: list[tuple], view: View | None) -> list[tuple]:
    return actor_rows if view is None else [r for r in actor_rows if r[0] in view.actors]


def hold_usage(resp: SearchResponse, view: View | None) -> SearchResponse:
    if view is not None and resp.lanes.skills is not None:
        for item in resp.lanes.skills.items:
            item.used_by = [u for u in item.used_by if u.actor_id in view.actors
                            and (u.episode_id is None or u.episode_id in view.episodes)]
    return resp


def trim(cur: duckdb.DuckDBPyConnection, fused: list[tuple], actor_rows: list[tuple],
         view: View | None) -> tuple[list[tuple], list[tuple], list[str]]:
    """(fused, actor rows, lanes trimmed) after the live check of every fused item (fail closed)."""
    if view is None or view.scope.live_roots is None or not fused:
        return fused, actor_rows, []
    from warehouse.extract.live import LiveSources, skill_file_live  # the source readers, on use only

    live = LiveSources(*view.scope.live_roots)
    where, skill_path = _places(cur, [int(r[1]) for r in fused], view)

    def confirmed(doc_id: int) -> bool:
        row = where.get(doc_id)
        if row is None:
            return False
        _, lane, source, session_id, account, workspace_id, path, doc_key, tool_grants = row
        try:
            if lane == "code":
                return workspace_id in view.grants.workspaces and live.code_file_live(workspace_id, path)
            if lane == "skills":
                return skill_file_live(skill_path.get(doc_key))
            if source == "autoclaw":
                return account in view.grants.accounts and live.autoclaw_session_live(account, session_id)
            if tool_grants:  # a Claude Code / Codex session: the workspace of the folder it ran in
                return any(k in view.grants.workspaces for k in tool_grants)
            # a DSH session: some workspace of the principal's still lists it, and its folder is there
            return any(w in view.grants.workspaces and live.workspace_live(w)
                       for w in live.dsh_session_workspaces(session_id))
        except OSError:
            return False

    ok = {int(r[1]) for r in fused if confirmed(int(r[1]))}
    kept = [r for r in fused if int(r[1]) in ok]
    lanes = sorted({r[0] for r in fused if int(r[1]) not in ok})
    if not lanes:
        return fused, actor_rows, []
    standing = {r[8] for r in kept if r[0] == "episodes"}
    return kept, [a for a in actor_rows if a[0] in standing], lanes


def _places(cur: duckdb.DuckDBPyConnection, doc_ids: list[int],
            view: View) -> tuple[dict[int, tuple], dict[str, str]]:
    """Where each document lives (and each skill's file), read once per view: a generation never changes,
    so only the live answers about these places are asked anew per response."""
    known, skills, _ = view.places
    need = sorted({d for d in doc_ids if d not in known})
    if need and len(known) > PLACES_MAX:  # a long-lived server stays small
        known.clear()
        skills.clear()
    if need:
        rows = {int(r[0]): tuple(r) for r in cur.execute(
            render("access_live", doc_ids=",".join(str(d) for d in need))).fetchall()}
        keys = sorted({r[7] for r in rows.values() if r[1] == "skills" and r[7] not in skills})
        if keys:
            skills.update(dict(db.run(cur, query_sql("access_live_skills"), [keys]).fetchall()))
        known.update({d: rows.get(d) for d in need})
    return {d: known[d] for d in doc_ids if known.get(d) is not None}, skills


def prefetch(cur: duckdb.DuckDBPyConnection, doc_ids: list[int], view: View) -> None:
    """Read the places of a search's lane candidates into the view (on the hint worker, beside fusion);
    `trim` then finds most final items there and reads only the rest (vector-only hits, say)."""
    _places(cur, doc_ids, view)


def settle(job: Future[Any]) -> None:
    """Wait for a `prefetch`; a failed one only means `trim` reads the places itself."""
    with contextlib.suppress(duckdb.Error):
        job.result()


def trim_warnings(lanes: list[str], lang: Lang = "en") -> list[LaneWarning]:
    return [LaneWarning(code=Code.ACCESS_TRIMMED.value, lane=lane, message=msg("access.trimmed", lang))
            for lane in lanes]


def hint(doc_ids: list[int], view: View, catalog: Catalog) -> list[HiddenHint]:
    """One entry per (source system, other principal who sees it); no title, snippet, id or count.
    `doc_ids`: the relevant hidden documents (lane_runner.hidden_hits); only the rights they hold are used."""
    rights = view.rights_of(doc_ids) if doc_ids else []
    if not rights:
        return []
    out = []
    for system, authors in sorted(view.authors(catalog, rights).items()):
        out += [HiddenHint(system=system, author_principal=a) for a in authors] or [HiddenHint(system=system)]
    return out
