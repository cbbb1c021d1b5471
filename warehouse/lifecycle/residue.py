"""The residue scan of `akw forget`: is any needle (the id, unique text fragments) left under AKW_HOME?

Every file is read as raw bytes (a DuckDB WAL, a JSON state file, a log); Parquet files are also read
back column by column (their pages are compressed, raw bytes would miss text) and DuckDB files are
queried (strings are stored compressed too). File names are checked as well. Findings name the file
and the needle's label (`id`, `fragment-3`), never the text.
"""

from __future__ import annotations

import json
from pathlib import Path

SKIP = {"config.yaml", "akw.lock"}  # what the user typed / a pid: not derived from indexed content


def scan(home: Path, needles: dict[str, str]) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    wanted = {label: n.encode("utf-8") for label, n in needles.items() if n}
    for path in sorted(p for p in home.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(home).as_posix()
        if rel in SKIP:
            continue
        labels = {label for label, n in needles.items() if n and n in rel}
        data = path.read_bytes()
        labels |= {label for label, b in wanted.items() if b in data}
        if path.suffix == ".parquet":
            labels |= _in_parquet(path, wanted)
        elif path.suffix == ".duckdb":
            labels |= _in_duckdb(path, needles)
        if labels:
            found.append({"path": rel, "found": sorted(labels)})
    return found


def _in_parquet(path: Path, wanted: dict[str, bytes]) -> set[str]:
    import pyarrow.parquet as pq

    try:
        rows = pq.read_table(path).to_pylist()
    except Exception:  # unreadable: the raw-byte scan already ran; say it could not be decoded
        return {"unreadable-parquet"}
    text = json.dumps(rows, ensure_ascii=False, default=str).encode("utf-8")
    return {label for label, b in wanted.items() if b in text}


def _in_duckdb(path: Path, needles: dict[str, str]) -> set[str]:
    import duckdb

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return {"unreadable-duckdb"}
    out: set[str] = set()
    try:
        cols: dict[str, list[str]] = {}
        for table, col, dtype in con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
            if "VARCHAR" in dtype or "JSON" in dtype or dtype.startswith(("STRUCT", "MAP")):
                cols.setdefault(table, []).append(col)
        for table, names in cols.items():
            for label, needle in needles.items():
                if label in out or not needle:
                    continue
                cond = " OR ".join(f'contains(CAST("{c}" AS VARCHAR), $1)' for c in names)
                if con.execute(f'SELECT count(*) FROM "{table}" WHERE {cond}', [needle]).fetchone()[0]:
                    out.add(label)
    finally:
        con.close()
    return out
