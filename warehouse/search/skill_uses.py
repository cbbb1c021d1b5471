"""Skills nominated by their use in the episodes that answer a search (issue 24).

"Which skill did the agent use while doing X" missed whenever the skill's own text shares no word
with X: the skills lane ranks skill documents by their words. The episodes lane already knows the
work that matches X, and each episode's document names the skills it used (the names ak_skill_use
records). So the best episode hits nominate those skills into the skills lane, carrying the terms
that episode matched: fusion then gates and covers them like any hit, and its skill-evidence boost
(fuse.sql, `evidence`) says in the item's why how many answering episodes used it. A nominated skill
ranks after the lane's own lexical hits (half the lowest lexical score): its words did not match.

Only lexical episode hits nominate: an episode found by meaning alone has no matched terms to lend,
and a similarity it did not earn would read as the skill's own.
"""

from __future__ import annotations

from collections.abc import Mapping

import duckdb

from warehouse.core.sqlfiles import query_sql, render
from warehouse.search.contract import SearchRequest
from warehouse.search.filters import lane_predicate
from warehouse.search.lane_runner import Hit
from warehouse.search.workspaces import Resolved

EPISODES = 5  # the best lexical episode hits whose skills are nominated ...
NEAR_BEST = 0.5  # ... among those scoring at least this share of the best one (a stray word nominates nothing)
SHARE = 0.5  # a nominated skill's score: this share of the lowest lexical skill hit's (or its episode's)


def read_skill_docs(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, ...]]:
    """Skill name -> its live skill documents (one per root holding it): read once per generation."""
    return {name: tuple(int(d) for d in ids) for name, ids in con.execute(query_sql("skill_docs")).fetchall()}


def nominate(cur: duckdb.DuckDBPyConnection, hits: list[Hit], req: SearchRequest, ws: Resolved,
             skill_docs: Mapping[str, tuple[int, ...]], allow: str = "") -> list[Hit]:
    """`hits` plus a skills-lane hit per skill the best episode hits used that the lane did not return
    (`skill_docs`: read_skill_docs of the generation; `allow`: the principal's pre-filter on `d`,
    access.View.allow_clause)."""
    if "skills" not in req.include or not skill_docs:
        return hits
    episodes = sorted((h for h in hits if h[0] == "episodes" and h[2] > 0 and h[3]), key=lambda h: (-h[2], h[1]))
    if not episodes:
        return hits
    best = {h[1]: h for h in episodes[:EPISODES] if h[2] >= NEAR_BEST * episodes[0][2]}
    used = cur.execute(render("skill_uses", episode_ids=",".join(str(int(d)) for d in best))).fetchall()
    have = {h[1] for h in hits if h[0] == "skills"}
    pairs = [(doc, int(ep)) for ep, name in used for doc in skill_docs.get(name, ()) if doc not in have]
    where = " AND ".join(c for c in (lane_predicate("skills", req.filters, ws), allow) if c)
    if pairs and where:  # the lane's filters and the principal's view hold for a nominated skill too
        ids = ",".join(str(d) for d in sorted({d for d, _ in pairs}))
        allowed = {int(d) for (d,) in cur.execute(render("skill_allowed", doc_ids=ids, where=where)).fetchall()}
        pairs = [(d, ep) for d, ep in pairs if d in allowed]
    floor = min((h[2] for h in hits if h[0] == "skills"), default=None)
    added: dict[int, Hit] = {}
    for skill_doc, episode_doc in pairs:
        ep = best[episode_doc]
        score = SHARE * (floor if floor is not None else ep[2])
        prev = added.get(skill_doc)
        terms = sorted(set(ep[3]) | set(prev[3] if prev else []))
        added[skill_doc] = ("skills", skill_doc, max(score, prev[2] if prev else 0.0), terms)
    return hits + [added[d] for d in sorted(added)]
