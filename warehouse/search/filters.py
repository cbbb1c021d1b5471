"""Request filters -> one trusted SQL predicate per lane on `ak_document d`.

Filters are applied in SQL before ranking (the boundary note 004: pre-filter in one SQL), so a
workspace filter can never leak another workspace's sessions or paths (KC-10). Values are always
literals.py literals (hex-encoded text, formatted numbers and times: data, never SQL); only fixed
column names are written into SQL text as such.
"""

from __future__ import annotations

from warehouse.core import literals as lit
from warehouse.search.contract import Filters
from warehouse.search.workspaces import Resolved


def lane_predicate(lane: str, f: Filters, ws: Resolved) -> str:
    """`ws`: the workspace filter resolved once per search (`workspaces.WorkspaceIndex.resolve`)."""
    clauses: list[str] = []
    if f.workspaces:
        # ids, paths, folder names and titles resolved to ak_document.ws_no numbers (literal
        # integers): an integer column scans ~10x cheaper than the two string columns
        mine = f"d.ws_no IN ({_ints(ws.ws_nos)})" if ws.ws_nos else "false"
        if lane == "skills" and ws.named:  # global skills (no workspace) stay visible beside its own
            clauses.append(f"(d.ws_no IS NULL OR {mine})")
        else:  # no value named a workspace: nothing matches, not even a global skill
            clauses.append(mine if ws.named else "false")
    if lane == "episodes":
        if f.session_ids:
            clauses.append(f"list_contains({lit.texts(f.session_ids)}, d.session_id)")
        if f.actor_ids:
            clauses.append(f"list_contains({lit.texts(f.actor_ids)}, d.actor_id)")
        if f.since is not None:
            clauses.append(f"d.time >= {lit.timestamp(f.since)}")
        if f.until is not None:
            clauses.append(f"d.time <= {lit.timestamp(f.until)}")
        if f.outcome == "success":
            clauses.append("d.outcome = 'success'")
        elif f.outcome == "failure":
            clauses.append("d.outcome IN ('failure', 'cancelled')")
        if f.skills:
            clauses.append(f"list_has_any(d.skills, {lit.texts(f.skills)})")
    elif lane == "skills":
        if f.skills:
            clauses.append(f"list_contains({lit.texts(f.skills)}, d.title)")
        if f.actor_ids:  # skills some of these actors used
            clauses.append("d.doc_key IN (SELECT skill_id FROM ak_skill_use "
                           f"WHERE list_contains({lit.texts(f.actor_ids)}, actor_id))")
    elif lane == "actors" and f.actor_ids:  # the internal lane of actor profiles
        clauses.append(f"list_contains({lit.texts(f.actor_ids)}, d.actor_id)")
    elif lane == "code" and f.paths:
        prefixes = lit.texts(p[2:] if p.startswith("./") else p for p in f.paths)
        clauses.append(f"list_bool_or(list_transform({prefixes}, lambda p: starts_with(d.path, p)"
                       " OR starts_with(d.workspace_path || '/' || d.path, p)))")
    return " AND ".join(clauses)


def is_selective(lane: str, f: Filters) -> bool:
    """Few documents of the lane can match: sessions or actors (the lexical query then filters the
    postings before scoring; a broad filter, e.g. a workspace, is joined to the scored hits)."""
    if lane == "episodes":
        return bool(f.session_ids or f.actor_ids)
    return lane == "skills" and bool(f.actor_ids)


def _ints(values: list[int]) -> str:
    return ", ".join(str(int(v)) for v in values)
