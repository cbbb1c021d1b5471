"""The residue scan of `akw forget`: is any needle (the id, unique text fragments) left under AKW_HOME?

Every file is read as raw bytes (a DuckDB WAL, a JSON state file, a log); Parquet files are also read
back column by column (their pages are compressed, raw bytes would miss text) and DuckDB files are
queried (strings are stored compressed too). File names are checked as well. Findings name the file
and the needle's label (`id`, `fragment-3`), never the text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from warehouse.core import db, literals

SKIP = {"config.yaml", "akw.lock"}  # what the user typed / a pid: not derived from indexed content


def scan(home: Path, needles: dict[str, str]) -> list[dict[str, object]]:
    import duckdb

    found: list[dict[str, object]] = []
    needles = {label: n for label, n in needles.items() if n}
    wanted = {label: n.encode("utf-8") for label, n in needles.items()}
    mem = duckdb.connect()  # reads Parquet back; no file of the home is opened for writing
    try:
        files = sorted(p for p in home.rglob("*") if p.is_file() and not p.is_symlink())
        in_parquet = _in_parquet_folders(mem, [p for p in files if p.suffix == ".parquet"], needles)
        for path in files:
            rel = path.relative_to(home).as_posix()
            if rel in SKIP:
                continue
            labels = {label for label, n in needles.items() if n in rel}
            data = path.read_bytes()
            labels |= {label for label, b in wanted.items() if b in data}
            if path.suffix == ".parquet":
                labels |= in_parquet[path]
            elif path.suffix == ".duckdb":
                labels |= _in_duckdb(path, needles)
            if labels:
                found.append({"path": rel, "found": sorted(labels)})
    finally:
        mem.close()
    return found


def _in_parquet_folders(con: Any, paths: list[Path], needles: dict[str, str]) -> dict[Path, set[str]]:
    """The labels each Parquet file's rows hold, one query per folder (a lake table's unit files share their
    columns): a lake of thousands of unit files is read in a few dozen statements, not one per file. A folder
    whose files cannot be read together (an unreadable file, clashing column types) is read file by file."""
    import duckdb

    folders: dict[Path, list[Path]] = {}
    for p in paths:
        folders.setdefault(p.parent, []).append(p)
    out: dict[Path, set[str]] = {}
    for group in folders.values():
        if len(group) > 1 and needles:
            try:
                out.update(_in_parquet_group(con, group, needles))
                continue
            except (duckdb.Error, ValueError):
                pass
        out.update({p: _in_parquet(con, p, needles) for p in group})
    return out


def _in_parquet_group(con: Any, group: list[Path], needles: dict[str, str]) -> dict[Path, set[str]]:
    files = "[" + ", ".join(literals.text(str(p)) for p in group) + "]"
    relation = f"read_parquet({files}, union_by_name = true, filename = true)"
    described = [(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    if sum(1 for c, _ in described if c == "filename") != 1:  # a column of the table's own named filename
        raise ValueError("a column of the table is named filename")
    cols = [c for c in _text_columns(described) if c != "filename"]
    out: dict[Path, set[str]] = {p: set() for p in group}
    if not cols:
        return out
    by_name = {str(p): p for p in group}
    cond = " OR ".join(f'contains(CAST("{c.replace(chr(34), chr(34) * 2)}" AS VARCHAR), n.needle)' for c in cols)
    pairs = ", ".join(f"({literals.text(label)}, {literals.text(n)})" for label, n in needles.items())
    for name, label in con.execute(f"SELECT DISTINCT t.filename, n.label FROM {relation} AS t, "
                                   f"(VALUES {pairs}) AS n(label, needle) WHERE {cond}").fetchall():
        out[by_name[name]].add(label)
    return out


def _text_columns(rows: list[tuple[str, str]]) -> list[str]:
    return [c for c, t in rows if "VARCHAR" in t or "JSON" in t or t.startswith(("STRUCT", "MAP"))]


def _matches(con: Any, relation: str, cols: list[str], needles: dict[str, str]) -> set[str]:
    """Labels of the needles some row of `relation` holds in a text column (one query per relation)."""
    if not cols or not needles:
        return set()
    cond = " OR ".join(f'contains(CAST("{c.replace(chr(34), chr(34) * 2)}" AS VARCHAR), n.needle)' for c in cols)
    labels, values = list(needles), list(needles.values())
    sql = (f"SELECT n.label FROM (SELECT unnest($1) AS label, unnest($2) AS needle) n "
           f"WHERE EXISTS (SELECT 1 FROM {relation} WHERE {cond})")
    return {r[0] for r in db.run(con, sql, [labels, values]).fetchall()}


def _in_parquet(con: Any, path: Path, needles: dict[str, str]) -> set[str]:
    import duckdb

    rel = f"read_parquet('{str(path).replace(chr(39), chr(39) * 2)}')"
    try:
        cols = _text_columns([(r[0], r[1]) for r in con.execute(f"DESCRIBE SELECT * FROM {rel}").fetchall()])
        return _matches(con, rel, cols, needles)
    except duckdb.Error:  # unreadable: the raw-byte scan already ran; say it could not be decoded
        return {"unreadable-parquet"}


def _in_duckdb(path: Path, needles: dict[str, str]) -> set[str]:
    import duckdb

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error:
        return {"unreadable-duckdb"}
    out: set[str] = set()
    try:
        cols: dict[str, list[tuple[str, str]]] = {}
        for table, col, dtype in con.execute(
                "SELECT table_name, column_name, data_type FROM information_schema.columns "
                "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position").fetchall():
            cols.setdefault(table, []).append((col, dtype))
        for table, rows in cols.items():
            rest = {k: v for k, v in needles.items() if k not in out}
            out |= _matches(con, f'"{table}"', _text_columns(rows), rest)
    finally:
        con.close()
    return out
