"""What each lane of the open generation can give, and why not: its `index_rev`, documents and degradation.

A lane is judged before any query runs, from two sources: the generation's per-lane build
record (read once when the engine opens a generation, `read_lane_info`) and the settings
(a source switched off). The lane runner later marks a lane whose query failed. The response
reports every lane's state as `degraded` / `degradation_reason` and a warning (contract §9),
so a caller learns why a lane is empty instead of taking silence for "nothing there".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

import duckdb

from warehouse.core.errors import Code
from warehouse.core.settings import Settings
from warehouse.core.sqlfiles import query_sql
from warehouse.search.contract import LANES
from warehouse.search.messages import Lang, msg

SOURCE_FLAGS = {"episodes": ("harness", "autoclaw"), "code": ("code",), "skills": ("skills",)}  # settings.sources
# The internal lane of actor profile documents (ak_document lane `actors`): it feeds the actor
# ranking only and is never a lane of the response (contract §4 keeps episodes/code/skills).
ACTOR_LANE = "actors"


class LaneInfo(TypedDict):
    """A lane of the open generation as the build left it."""

    docs: int
    rev: str | None
    failed_units: int
    codes: list[str]


class _LaneStateBase(TypedDict):
    rev: str
    docs: int
    unavailable: bool  # no query runs (or its result is void)
    degraded: bool  # reported as degraded, with `code` and `reason`
    code: str | None
    reason: str | None


class LaneState(_LaneStateBase, total=False):
    """A lane during one search; `hits` is set once its query has run."""

    hits: int


def read_lane_info(con: duckdb.DuckDBPyConnection) -> dict[str, LaneInfo]:
    """Documents, revision and failed source units per lane: read once per generation, not per search."""
    info: dict[str, LaneInfo] = {lane: {"docs": 0, "rev": None, "failed_units": 0, "codes": []}
                                 for lane in (*LANES, ACTOR_LANE)}
    for lane, n in con.execute("SELECT lane, n_docs FROM fts_lane_stats").fetchall():
        if lane in info:
            info[lane]["docs"] = int(n)
    for lane, rev, failed, codes in con.execute(query_sql("lane_revs")).fetchall():
        if lane in info:
            info[lane].update(rev=rev, failed_units=int(failed), codes=list(codes or []))
    return info


def lane_state(lane: str, info: Mapping[str, Any], settings: Settings, lang: Lang = "en") -> LaneState:
    """A lane's state before its query: disabled source, nothing indexed, or failed source units (reason in `lang`)."""
    enabled = any(getattr(settings.sources, f) for f in SOURCE_FLAGS[lane])
    st: LaneState = {"rev": info.get("rev") or f"lane-{lane}-empty", "docs": info.get("docs", 0),
                     "unavailable": False, "degraded": False, "code": None, "reason": None}
    if not enabled:
        st.update(unavailable=True, degraded=True, code=Code.SOURCE_UNAVAILABLE.value,
                  reason=msg("lane.source_disabled", lang, lane=lane))
    elif st["docs"] == 0:
        codes = info.get("codes")
        st.update(unavailable=True, degraded=True, code=Code.INDEX_NOT_READY.value,
                  reason=msg("lane.not_indexed_codes", lang, lane=lane, codes=", ".join(codes)) if codes
                  else msg("lane.not_indexed", lang, lane=lane))
    elif info.get("failed_units"):
        st.update(degraded=True, code=Code.LANE_DEGRADED.value,
                  reason=msg("lane.units_failed", lang, failed=info["failed_units"], codes=", ".join(info["codes"])))
    return st


def fail_lane(st: LaneState, reason: str) -> None:
    """A lane whose query did not finish: its hits are void and the response says why (§9)."""
    st.update(unavailable=True, degraded=True, code=Code.LANE_DEGRADED.value, reason=reason)
