"""Request filters -> one trusted SQL predicate per lane on `ak_document d`, with bound parameters.

Filters are applied in SQL before ranking (the boundary note 004: pre-filter in one SQL), so a
workspace filter can never leak another workspace's sessions or paths (KC-10). Values are always
bound parameters; only fixed column names are written into SQL text.
"""

from __future__ import annotations

from typing import Any

from warehouse.search.contract import Filters


def lane_predicate(lane: str, f: Filters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if f.workspaces:
        if lane == "skills":  # global skills (no workspace) stay visible; workspace skills must match
            clauses.append("(d.workspace_id IS NULL OR list_contains(?, d.workspace_id))")
            params.append(list(f.workspaces))
        else:
            clauses.append("(list_contains(?, d.workspace_id) OR list_contains(?, d.workspace_path))")
            params += [list(f.workspaces), list(f.workspaces)]
    if lane == "episodes":
        if f.session_ids:
            clauses.append("list_contains(?, d.session_id)")
            params.append(list(f.session_ids))
        if f.actor_ids:
            clauses.append("list_contains(?, d.actor_id)")
            params.append(list(f.actor_ids))
        if f.since is not None:
            clauses.append("d.time >= ?")
            params.append(f.since)
        if f.until is not None:
            clauses.append("d.time <= ?")
            params.append(f.until)
        if f.outcome == "success":
            clauses.append("d.outcome = 'success'")
        elif f.outcome == "failure":
            clauses.append("d.outcome IN ('failure', 'cancelled')")
        if f.skills:
            clauses.append("list_has_any(d.skills, ?)")
            params.append(list(f.skills))
    elif lane == "skills":
        if f.skills:
            clauses.append("list_contains(?, d.title)")
            params.append(list(f.skills))
        if f.actor_ids:  # skills some of these actors used
            clauses.append("d.doc_key IN (SELECT skill_id FROM ak_skill_use WHERE list_contains(?, actor_id))")
            params.append(list(f.actor_ids))
    elif lane == "code" and f.paths:
        clauses.append("list_bool_or(list_transform(?, lambda p: starts_with(d.path, p)"
                       " OR starts_with(d.workspace_path || '/' || d.path, p)))")
        params.append([p[2:] if p.startswith("./") else p for p in f.paths])
    return " AND ".join(clauses), params
