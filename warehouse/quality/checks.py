"""The expectations of the suite: which frame, which GX expectation, which kind of damage it catches."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OUTCOMES = ["success", "partial", "failure", "cancelled", "running", "unknown"]
KINDS = ("unique_ids", "evidence", "actor_refs", "relations", "lanes", "enums", "secrets", "reconcile")


@dataclass(frozen=True)
class Check:
    name: str  # stable, what a failure names: "<kind>:<frame>.<column>"
    kind: str  # one of KINDS
    frame: str  # a frame of warehouse.quality.frames
    expectation: str  # a class of great_expectations.expectations
    kwargs: dict[str, Any] = field(default_factory=dict)


def _unique(frame: str, column: str) -> list[Check]:
    return [Check(f"unique_ids:{frame}.{column}", "unique_ids", frame, "ExpectColumnValuesToBeUnique",
                  {"column": column}),
            Check(f"unique_ids:{frame}.{column}:not_null", "unique_ids", frame, "ExpectColumnValuesToNotBeNull",
                  {"column": column})]


def _true(kind: str, frame: str, column: str) -> Check:
    return Check(f"{kind}:{frame}.{column}", kind, frame, "ExpectColumnValuesToBeInSet",
                 {"column": column, "value_set": [True]})


def _enum(frame: str, column: str, values: list[str]) -> Check:
    """Values in the set; GX skips nulls here (a nullable enum such as a document's outcome)."""
    return Check(f"enums:{frame}.{column}", "enums", frame, "ExpectColumnValuesToBeInSet",
                 {"column": column, "value_set": values})


CHECKS: tuple[Check, ...] = (
    *_unique("episodes", "episode_id"),
    *_unique("events", "event_id"),
    *_unique("actors", "actor_id"),
    *_unique("skills", "skill_id"),
    *_unique("documents", "doc_id"),
    *_unique("documents", "doc_key"),
    *_unique("relations", "key"),
    _true("evidence", "episodes", "evidence_resolves"),
    _true("actor_refs", "episodes", "actor_resolves"),
    _true("relations", "relations", "src_resolves"),
    _true("relations", "relations", "dst_resolves"),
    _true("lanes", "documents", "lane_shape_ok"),
    _enum("episodes", "outcome", OUTCOMES),
    _enum("episodes", "source", ["harness", "autoclaw"]),
    _enum("documents", "outcome", OUTCOMES),
    _enum("documents", "lane", ["episodes", "code", "skills", "actors"]),
    _enum("documents", "kind", ["episode", "assistant", "tool_call", "tool_result", "artifact", "system",
                                "memory", "skill", "chunk", "actor"]),
    _enum("events", "role", ["human", "injected", "assistant", "reasoning", "tool_call", "tool_result",
                             "artifact", "system", "other"]),
    _enum("actors", "kind", ["root_session", "subagent", "team_member", "autoclaw_agent"]),
    _enum("actors", "dispatch_mode", ["spawn_replica", "team_task", "external_handoff"]),
    _enum("skills", "status", ["live", "removed"]),
    _enum("relations", "rel", ["did", "participated", "used", "produced", "about", "related"]),
    _true("secrets", "text_cells", "clean"),
    _true("secrets", "lake_cells", "clean"),
    Check("reconcile:reconcile.expected=actual", "reconcile", "reconcile", "ExpectColumnPairValuesToBeEqual",
          {"column_A": "expected", "column_B": "actual"}),
    _true("reconcile", "reconcile", "coverage_ok"),
)
