"""Shared steps of the team tests: run `akw` as a separate process, make a union home, scan files raw."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from cli_run import akw_json

AKW = Path(sys.executable).parent / "akw"
VOLATILE = {"index_rev", "generation", "observed_at", "published_at", "built_at", "request_id", "took_ms",
            "elapsed_ms", "generated_at", "timings", "duration_ms"}


def env_for(home: Path, fx: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AKW_", "PG"))}
    return {**env, "AKW_HOME": str(home), "DSH_HOME": str(fx / "dsh"), "AUTOCLAW_ROOT": str(fx / "autoclaw"), **extra}


def akw(home: Path, fx: Path, *args: str, ok: bool = True, **extra: str) -> dict[str, Any]:
    """The real `akw` app in-process (tests/cli_run.py), with the environment `env_for` gives a process."""
    env = {"AKW_HOME": str(home), "DSH_HOME": str(fx / "dsh"), "AUTOCLAW_ROOT": str(fx / "autoclaw"), **extra}
    code, doc = akw_json(*args, env=env, keep=(), clear=("AKW_", "PG"))
    assert (code == 0) == ok, (code, doc)
    return doc


def popen(home: Path, fx: Path, *args: str, **extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen([str(AKW), *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_for(home, fx, **extra))


def union_lake(homes: dict[str, Path], target: Path) -> None:
    """One machine's lake holding both writers' units (files renamed apart) and both unit-state sets."""
    for writer, home in homes.items():
        for f in sorted((home / "lake" / "bronze").glob("*/*/*.parquet")):
            if f.parent.parent.name == "meta":
                continue
            name = f.name if f.name == "_schema.parquet" else f"{writer}-{f.name}"
            dest = target / "lake" / "bronze" / f.parent.parent.name / f.parent.name / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, dest)
        for st in sorted((home / "state").glob("*.json")):
            dest = target / "state" / st.name
            doc = json.loads(dest.read_text()) if dest.exists() else {"source": st.stem, "cursors": {}, "units": {}}
            mine = json.loads(st.read_text())
            doc["units"].update({f"{writer}:{k}": {**v, "unit": f"{writer}/{v['unit']}"}
                                 for k, v in mine.get("units", {}).items()})
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_text(json.dumps(doc))


def strip(doc: Any) -> Any:
    """A search answer without what names the build (rev, generation, timings)."""
    if isinstance(doc, dict):
        return {k: strip(v) for k, v in doc.items() if k not in VOLATILE}
    if isinstance(doc, list):
        return [strip(v) for v in doc]
    return doc


def raw_hits(root: Path, needle: str) -> list[str]:
    """Files under `root` whose raw bytes contain `needle` (UTF-8), or whose decoded Parquet values do."""
    import duckdb

    hits = []
    raw = needle.encode()
    for f in sorted(p for p in root.rglob("*") if p.is_file()):
        if raw in f.read_bytes():
            hits.append(str(f))
        elif f.suffix == ".parquet":
            text = duckdb.sql(f"SELECT CAST(COLUMNS(*) AS VARCHAR) FROM read_parquet('{f}')").fetchall()
            if any(needle in (v or "") for row in text for v in row):
                hits.append(str(f))
    return hits
