"""The frames the suite validates: one SQL file each over a generation's marts, read into pandas."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from warehouse.core import db, literals
from warehouse.core.redact import HINT, mark, redact_hinted
from warehouse.core.sqlfiles import query_sql, render
from warehouse.home import generation

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

FRAMES = ("episodes", "events", "actors", "skills", "documents", "relations", "reconcile")
SKIP_TEXT = {"ak_index_run.errors_json"}  # stable codes and counts, no indexed text
# a marker left by redaction is not a secret, but `https://[REDACTED:email]@host` reads as URL credentials
MARKER = re.compile(re.escape(mark("KIND")).replace("KIND", r"[a-z_\-]+"))  # the form redact() writes


def _clean(value: str) -> bool:
    """Whether redacting a value that hits the pre-filter again changes nothing but its markers' kinds."""
    again = redact_hinted(value)
    return again == value or MARKER.sub("[R]", again) == MARKER.sub("[R]", value)


def _clean_flags(values: list[str]) -> list[bool]:
    """`_clean` of each value. Redaction leaves a value without its pre-filter's hint (`HINT`) as it is, so only
    the hinted values are redacted again; the hint is found by one vectorised regex pass over the column (the
    same pattern, as the lake writer's redaction finds it), not value by value in Python (half the time on a
    small home)."""
    import polars as pl

    hinted = pl.Series(values, dtype=pl.String).str.contains(HINT).fill_null(False).to_list()
    return [not h or _clean(v) for h, v in zip(hinted, values, strict=True)]


def _keys_and_flags(rows: list[tuple[str, str]], keys: list[str], clean: list[bool]) -> None:
    """Append the (key, value) `rows`' keys to `keys` and their values' `_clean` verdicts to `clean`."""
    if rows:
        ks, vs = zip(*rows, strict=True)
        keys.extend(ks)
        clean.extend(_clean_flags(list(vs)))


def _text_cells(con: duckdb.DuckDBPyConnection) -> pd.DataFrame:
    """Every non-null VARCHAR cell of the ak_* marts → (key, clean): clean = redaction would change nothing.

    Redaction is not idempotent on its own markers (`https://[REDACTED:email]@host` reads as URL credentials
    and is re-marked), so markers compare as one token: a cell is clean when redacting it again only
    re-marks what was already marked. The text is dropped here.
    """
    import pandas as pd

    keys: list[str] = []
    clean: list[bool] = []
    for mart, column in con.execute(query_sql("quality_text_columns")).fetchall():
        if f"{mart}.{column}" in SKIP_TEXT:
            continue
        _keys_and_flags(con.execute(render("quality_text_column", mart=mart, column=column)).fetchall(), keys, clean)
    return pd.DataFrame({"key": keys, "clean": clean})


def _lake_cells(lake: Path | None) -> pd.DataFrame:
    """Every non-null text cell of the Parquet lake (`bronze/<source>/<table>/*.parquet`) → (key, clean)."""
    import pandas as pd

    keys: list[str] = []
    clean: list[bool] = []
    tables = sorted(p for p in (lake / "bronze").glob("*/*") if p.is_dir()) if lake else []
    con = db.connect(extensions=())
    try:
        for folder in tables:
            if not any(folder.glob("*.parquet")):
                continue
            glob = literals.text(folder.as_posix() + "/*.parquet")
            table = f"{folder.parent.name}.{folder.name}"
            cols = con.execute(f"DESCRIBE SELECT * FROM read_parquet({glob}, union_by_name = true)").fetchall()
            for column in (c[0] for c in cols if c[1] == "VARCHAR"):
                sql = render("quality_lake_column", table=table, column=column, glob=glob)
                _keys_and_flags(con.execute(sql).fetchall(), keys, clean)
    finally:
        con.close()
    return pd.DataFrame({"key": keys, "clean": clean})


def read_frames(db_path: Path, lake: Path | None = None) -> dict[str, pd.DataFrame]:
    """All frames of one generation file (opened read-only) and, when given, of the home's lake."""
    # the readers' one configuration: DuckDB refuses a second one for the same file in one process
    # (a notebook that searched, then checks quality)
    con = db.connect(db_path, read_only=True, memory_limit=generation.READER_MEMORY,
                     threads=generation.READER_THREADS)
    try:
        frames = {name: con.execute(query_sql(f"quality_{name}")).df() for name in FRAMES}
        frames["text_cells"] = _text_cells(con)
    finally:
        con.close()
    frames["lake_cells"] = _lake_cells(lake)
    return frames
