"""Hostile text in every lake table goes through the real models (issue 27): the build publishes and leaves
no unit out.

One unit's file of every bronze table gets hostile values in its text columns — plain text where JSON or a
time is expected (a tool error), half JSON, NUL, replacement characters, 200k characters, 300-deep nesting,
JSON of the wrong shape — and the home builds from that lake. Without the guards of this change two units
were left out (a DSH session's agent-team projection and an AutoClaw ledger's `deployedAt` that is no
time). Not yet a property over every value in every column: one value per column and row. The columns
the extractors fill from their own vocabulary (ids, keys, enums such as `kind`, `event_type`, `skill_via`)
and the roles, types, statuses and outcomes that accepted-values constraints check are left as they are here: a
hostile role or status breaks a declared constraint, and the build leaves that unit out
(test_quarantine.py: test_a_role_or_status_no_model_accepts_leaves_its_unit_out).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from homes import BuiltHome

HOSTILE = ["ERROR 1290 (HY000): The MySQL server is running", '{"command": "ls', "[1, 2", "\x00", "{" * 2000, "",
           "null", "42", "\ufffd\ufffd", '{"a": ' * 300 + "1" + "}" * 300, "x" * 200_000,
           '{"content": [{"type": "text", "text": 5}]}', '[{"path": 3}]']
KEPT = {"id", "unit", "unit_key", "key", "session", "source", "account", "rev", "root_kind", "kind", "event_type",
        "actor_kind", "skill_via", "role", "type", "status", "outcome", "state"}


def _poison(lake: Path) -> list[Path]:
    """Hostile values in the text columns of the first unit file of every bronze table: row r of column i
    gets value (r + i), so the columns of one row meet different values."""
    changed: list[Path] = []
    for table in sorted(p for p in (lake / "bronze").glob("*/*") if p.is_dir()):
        files = sorted(f for f in table.glob("*.parquet") if f.name != "_schema.parquet")
        if not files:
            continue
        t = pq.read_table(files[0])
        cols = []
        for i, field in enumerate(t.schema):
            col = t.column(i)
            text = pa.types.is_string(field.type) or pa.types.is_large_string(field.type)  # polars writes large
            if text and field.name not in KEPT and not field.name.endswith("_id"):
                col = pa.array([HOSTILE[(r + i) % len(HOSTILE)] for r in range(len(col))], type=field.type)
            cols.append(col)
        pq.write_table(pa.table(cols, schema=t.schema), files[0], compression="zstd")
        changed.append(files[0])
    return changed


def test_hostile_text_in_every_lake_table_builds_and_leaves_nothing_out(small: BuiltHome, tmp_path: Path) -> None:
    wh = small.copy(tmp_path / "akw")
    changed = _poison(wh.paths.lake)
    assert len(changed) >= 15, changed  # DSH, AutoClaw, skills and code tables
    for f in wh.paths.generations.iterdir():  # nothing published: the next run builds from this lake
        if f.is_file():
            f.unlink()
    run = wh.reindex()
    assert run["outcome"] == "published"
    assert "quarantined" not in run["build"], run["build"].get("quarantined")
    assert run["build"]["counts"]["ak_document"] > 0 and run["build"]["counts"]["ak_skill"] > 0
