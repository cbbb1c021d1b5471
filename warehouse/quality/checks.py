"""The expectations of the suite: which frame, which GX expectation, which kind of damage it catches."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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


# the frame of each mart whose declared constraints the suite re-checks on a published generation; each
# frame carries the mart's key and enum columns (sql/queries/quality/quality_<frame>.sql)
MARTS = {"episodes": "ak_episode", "events": "ak_event", "actors": "ak_actor", "skills": "ak_skill",
         "documents": "ak_document", "relations": "ak_relation"}


def declared(frame: str, mart: str) -> list[Check]:
    """The model header's `unique`/`accepted_values` (and the `not_null` of those columns) as expectations:
    the one statement of them is the model file, which the build also enforces before it publishes.
    A composite key is checked on the frame's `key` column, which joins its parts."""
    from warehouse.indexing.transform import discover  # jinja2 and the models only when the suite runs

    cs = discover()[mart].constraints
    not_null = {c.columns[0] for c in cs if c.kind == "not_null"}
    out: list[Check] = []
    for c in cs:
        if c.kind == "unique":
            out += _unique(frame, c.columns[0] if len(c.columns) == 1 else "key")
        elif c.kind == "accepted_values":
            col = c.columns[0]
            out.append(_enum(frame, col, list(c.values)))
            if col in not_null:
                out.append(Check(f"enums:{frame}.{col}:not_null", "enums", frame, "ExpectColumnValuesToNotBeNull",
                                 {"column": col}))
    return out


def checks() -> tuple[Check, ...]:
    """Every check: the models' declared constraints, then what no header can say (references resolve,
    lanes have their shape, no secret survived, the counts reconcile with the sources)."""
    return (
        *(c for frame, mart in MARTS.items() for c in declared(frame, mart)),
        _true("evidence", "episodes", "evidence_resolves"),
        _true("actor_refs", "episodes", "actor_resolves"),
        _true("relations", "relations", "src_resolves"),
        _true("relations", "relations", "dst_resolves"),
        _true("lanes", "documents", "lane_shape_ok"),
        _true("secrets", "text_cells", "clean"),
        _true("secrets", "lake_cells", "clean"),
        Check("reconcile:reconcile.expected=actual", "reconcile", "reconcile", "ExpectColumnPairValuesToBeEqual",
              {"column_A": "expected", "column_B": "actual"}),
        _true("reconcile", "reconcile", "coverage_ok"),
    )
