"""`reindex --mode verify`: re-check the published generation against the lake and state; change nothing.

Checks: the pointer names the file's rev; every constraint the models declare in their headers
holds (`transform.check_constraints`: keys unique and not null, enums within their values); each
lake table's distinct keys equal its staging model's rows (the header makes the keys unique there);
the lake state's index_rev is the published one.
"""

from __future__ import annotations

from typing import Any

from warehouse.core import db
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home import generation, outbox
from warehouse.indexing import index_rev, transform

# staging model -> (lake source, lake table, key): the generation must hold every lake key exactly once
# (the model's `-- unique:` header guards "once"; the row count against the lake guards "every")
LAKE_TABLES = {
    "stg_dsh_sessions": ("dsh", "sessions", "session_id"),
    "stg_skills": ("skills", "skills", "skill_id"),
    "stg_code_chunks": ("code", "code_chunks", "chunk_id"),
}


def check_generation(paths: Paths, settings: Settings) -> dict[str, Any]:
    mismatches: list[dict[str, Any]] = []
    gen = generation.current(paths.generations)
    if gen is None:
        return {"mode": "verify", "ok": False,
                "mismatches": [{"check": "published", "message": "no generation is published"}]}
    con, _ = generation.open_current(paths.generations)
    try:
        meta_rev = con.execute("SELECT index_rev FROM akw_meta").fetchone()[0]
        if meta_rev != gen.index_rev:
            mismatches.append({"check": "pointer", "expected": gen.index_rev, "found": meta_rev})
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        gen_counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in LAKE_TABLES if t in tables}
        # the models' declared constraints (`-- unique:`, `-- not_null:`, `-- accepted_values:` headers)
        mismatches.extend(transform.check_constraints(con))
    finally:
        con.close()
    mem = db.connect(":memory:", extensions=())
    try:
        for model, (source, table, key) in LAKE_TABLES.items():
            glob = (paths.lake / "bronze" / source / table).as_posix() + "/*.parquet"
            try:
                lake_n = mem.execute(f"SELECT count(DISTINCT {key}) FROM read_parquet(?, union_by_name=true)",
                                     [glob]).fetchone()[0]
            except Exception as e:  # lake deleted or unreadable: that is a mismatch, not a crash
                mismatches.append({"check": f"lake.{source}.{table}", "message": type(e).__name__})
                continue
            if model in gen_counts and gen_counts[model] != lake_n:
                mismatches.append({"check": model, "lake_rows": lake_n, "generation_rows": gen_counts[model]})
    finally:
        mem.close()
    rev_now = index_rev.compute(paths.state_dir, settings, outbox.digest(paths))
    if rev_now != gen.index_rev:
        mismatches.append({"check": "index_rev", "published": gen.index_rev, "lake_state": rev_now,
                           "message": "extracted changes are not published yet (run akw reindex)"})
    return {"mode": "verify", "ok": not mismatches, "index_rev": gen.index_rev, "generation": gen.path.name,
            "mismatches": mismatches}
