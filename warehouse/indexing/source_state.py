"""Snapshot of every source unit's state into the lake (`meta/source_state`), read by `ak_source_state`."""

from __future__ import annotations

import json

import polars as pl

from warehouse.core.paths import Paths
from warehouse.home.lake import Lake
from warehouse.home.state import load_all_units

_COLUMNS = ("source", "unit", "revision", "status", "error_code", "error", "counts_json", "schema_version",
            "extracted_at")


def write_source_state(paths: Paths) -> None:
    """One row per unit, so the models see the same unit states the run's `index_rev` was computed from."""
    rows = [{
        "source": u.get("source"), "unit": u.get("unit"), "revision": u.get("revision"),
        "status": u.get("status"), "error_code": u.get("error_code"), "error": u.get("error"),
        "counts_json": json.dumps(u.get("counts") or {}, sort_keys=True),
        "schema_version": u.get("schema_version"), "extracted_at": u.get("extracted_at"),
    } for u in load_all_units(paths.state_dir)]
    schema = {k: pl.String for k in _COLUMNS}
    lake = Lake(paths.lake)
    ensure_source_state_schema(lake)
    lake.write_unit("meta", "source_state", "all", pl.DataFrame(rows, schema=schema))


def ensure_source_state_schema(lake: Lake) -> None:
    """`meta/source_state` exists with its columns (a team snapshot brings the rows of every writer)."""
    lake.ensure_table("meta", "source_state", {k: pl.String for k in _COLUMNS})


WRITER_SCOPE = {"writer_id": pl.String, "kind": pl.String, "id": pl.String}


def ensure_writer_scope_schema(lake: Lake) -> None:
    """`meta/writer_scope` (→ `ak_writer_scope`) exists; only a team snapshot brings rows (ADR 0013)."""
    lake.ensure_table("meta", "writer_scope", WRITER_SCOPE)
