"""The Parquet lake: `lake/bronze/<source>/<table>/<unit>.parquet`, one file set per source unit.

Every frame is redacted here, on the way to disk, so no extractor can forget it.
Files are written to a temp name and renamed, so a crash never leaves a torn file.
A table with no rows for a unit has no file; `ensure_table` writes a zero-row
`_schema.parquet` once so models can always read a table with its columns.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from warehouse.core.paths import private_dir
from warehouse.core.redact import redact_frame

_SAFE = re.compile(r"[^A-Za-z0-9._\-]")
SCHEMA_FILE = "_schema.parquet"


def unit_key(*parts: str) -> str:
    """A filesystem-safe, stable file stem for a source unit (readable prefix + short hash)."""
    raw = "/".join(parts)
    readable = _SAFE.sub("_", parts[-1])[:60] if parts else "unit"
    return f"{readable}-{hashlib.sha1(raw.encode()).hexdigest()[:10]}"


class Lake:
    def __init__(self, root: Path, redact: bool = True, pii: bool = True) -> None:
        self.root = root
        self.bronze = root / "bronze"
        self.redact = redact
        self.pii = pii
        self.files_written = 0

    def table_dir(self, source: str, table: str) -> Path:
        return self.bronze / source / table

    def glob(self, source: str, table: str) -> str:
        return str(self.table_dir(source, table) / "*.parquet")

    def ensure_table(self, source: str, table: str, schema: Mapping[str, pl.DataType]) -> None:
        path = self.table_dir(source, table) / SCHEMA_FILE
        if not path.exists():
            self._write(pl.DataFrame(schema=dict(schema)), path)

    def write_unit(self, source: str, table: str, key: str, df: pl.DataFrame) -> int:
        """Replace one unit's file of one table; an empty frame removes the file. Returns rows."""
        path = self.table_dir(source, table) / f"{key}.parquet"
        if df.height == 0:
            path.unlink(missing_ok=True)
            return 0
        self._write(df, path)
        return df.height

    def drop_unit(self, source: str, key: str) -> None:
        """Remove every table's file of one unit (source gone, excluded or forgotten)."""
        src = self.bronze / source
        if src.exists():
            for f in src.glob(f"*/{key}.parquet"):
                f.unlink()

    def unit_keys(self, source: str, table: str) -> set[str]:
        d = self.table_dir(source, table)
        return {p.stem for p in d.glob("*.parquet") if p.name != SCHEMA_FILE} if d.exists() else set()

    def _write(self, df: pl.DataFrame, path: Path) -> None:
        if not path.parent.is_dir():
            private_dir(path.parent)  # lake/bronze/<source>/<table>: 0700 whatever the umask
        if self.redact:
            df = redact_frame(df, self.pii)
        tmp = path.with_name(f".{path.name}.tmp")
        # lz4, not zstd: the build reads every unit file of a table (hundreds of small files), and
        # DuckDB's per-column-chunk zstd cost made reading 200 one-row session files take 0.4 s
        # (lz4: 0.25 s; events 0.38 -> 0.25 s) for ~30% more lake bytes
        df.write_parquet(tmp, compression="lz4", statistics=True)
        os.chmod(tmp, 0o600)
        tmp.replace(path)
        self.files_written += 1
