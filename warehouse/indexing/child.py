"""Build one generation file from the lake, in a child process of `akw reindex`.

Why a child: the build is the memory-heavy step (DuckDB sorts, joins and the lexical index);
running it in a fresh process that imports only DuckDB keeps the peak RSS of each process
low, and the extract's Python/Arrow memory never adds to it. The child dies with its parent
(PR_SET_PDEATHSIG), so `kill -9` of `akw reindex` never leaves a builder running; a killed
build leaves only a `.building-*` file, which the next run removes.

The child binds no query parameters: the first bound parameter makes DuckDB's Python module
import pandas and pyarrow (~85 MB RSS), so values go into the SQL as escaped literals.
The job's `previous` generation (read-only) lends the lexical build the term counts of texts it
already tokenized (warehouse.indexing.lexical_index).

Protocol: argv[1] is a JSON job; the child prints one JSON document of build stats on stdout.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from warehouse import __version__
from warehouse.core import db, tokenizer
from warehouse.core.literals import double
from warehouse.core.literals import value as literal
from warehouse.core.sqlfiles import build_sql
from warehouse.indexing import quarantine, transform

_RUNS_PER_INSERT = 500
# Below this many documents the checkpoint does not analyse FSST: its analysis costs a fixed ~0.5 ms per
# text column segment (~0.25 s of a ~1.1 s build of a 6-session home, ~1,100 columns), and on such homes it
# is picked for a handful of segments of a ~14 MB file (same bytes with or without it on the small home).
# Larger generations keep it: there it compresses the documents' and events' texts.
FSST_MIN_DOCS = 20_000


def build_generation(job: dict[str, Any], on_done: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Build the generation file; `on_done(stats)` runs once the file is checkpointed, before close.

    `main` uses it to report and leave with os._exit: after CHECKPOINT (no WAL left) the file is
    complete, and DuckDB's teardown of a build-sized session only frees memory (~0.2 s).

    A model that fails on one unit's lake data, or breaks a declared constraint with it, leaves that unit
    out (indexing/quarantine.py): the build starts again without it, and `stats["quarantined"]` names it
    with the model and the error.
    """
    left_out: list[dict[str, str]] = []
    while True:
        units = [quarantine.Unit(q["source"], q["unit"]) for q in left_out]
        try:
            stats = _build(job, quarantine.keep_all_but(units) if units else None, on_done, left_out)
            return stats
        except (duckdb.Error, transform.ConstraintError) as e:
            if not quarantine.may_be_data(e) or len(left_out) >= quarantine.MAX_UNITS:
                raise
            model, models = quarantine.failed_model(e) or "", transform.discover()
            if model not in models:
                raise
            sources = transform.lake_sources(models, transform.upstream(models, model))
            bad = quarantine.find_bad_unit(quarantine.lake_units(Path(job["lake"]), units, sources),
                                           lambda keep, model=model: _fails(job, keep, model))
            if bad is None:
                raise
            left_out.append({"source": bad.source, "unit": bad.stem, "model": model,
                             "error": f"{type(e).__name__}: {str(e).splitlines()[0][:300]}"})
            db.remove_files(Path(job["build_path"]))


def _fails(job: dict[str, Any], keep: Callable[[Path], bool], model: str) -> bool:
    """Whether `model` and the models it reads, built from the lake files `keep` lets through, fail on their
    data or break a constraint they declare (a scratch database beside the build file, removed after)."""
    probe = Path(f"{job['build_path']}.probe")
    db.remove_files(probe)
    con = db.connect(probe, memory_limit=job["memory_limit"], threads=job["threads"])
    try:
        _raw_tables(con, [], [])
        built = transform.run(con, Path(job["lake"]), keep=keep, target=model)
        return bool(transform.check_constraints(con, only=built))
    except duckdb.Error as e:
        return quarantine.may_be_data(e)
    finally:
        con.close()
        db.remove_files(probe)


def _raw_tables(con: Any, runs: list[str], assignments: list[str]) -> None:
    """The run log's lines and the outbox's rows (warehouse.home.outbox), as the models read them."""
    for name, lines in (("_akw_runs_raw", runs), ("_akw_assignments_raw", assignments)):
        con.execute(f"CREATE TABLE {name} (line VARCHAR)")
        for i in range(0, len(lines), _RUNS_PER_INSERT):
            values = ", ".join(f"({literal(line)})" for line in lines[i:i + _RUNS_PER_INSERT])
            con.execute(f"INSERT INTO {name} VALUES {values}")


def _build(job: dict[str, Any], keep: Callable[[Path], bool] | None,
           on_done: Callable[[dict[str, Any]], None] | None, left_out: list[dict[str, str]]) -> dict[str, Any]:
    from warehouse.indexing import lexical_index

    t = time.perf_counter()
    build_path = Path(job["build_path"])
    con = db.connect(build_path, memory_limit=job["memory_limit"], threads=job["threads"])
    try:
        _raw_tables(con, job["runs"], job.get("assignments", []))
        built = transform.run(con, Path(job["lake"]), keep=keep)
        _require_constraints(con)
        t_models = time.perf_counter() - t
        prev = job.get("previous")
        lex = lexical_index.build_lexical_index(con, Path(prev) if prev else None)
        # the language gap (search/match.py, akw status): measured once here, read by every searcher off akw_meta
        lex["cyrillic_share"] = round(tokenizer.cyrillic_share(con), 4)
        con.execute(build_sql("doc_lookup"))
        semantic = None
        if job.get("semantic"):
            from warehouse.indexing import embeddings

            semantic = embeddings.build_vectors(con, Path(prev) if prev else None, Path(f"{build_path}.vec.parquet"))
        built_at = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        con.execute(f"CREATE TABLE akw_meta AS SELECT {literal(job['index_rev'])} AS index_rev, "
                    f"{literal(built_at)} AS built_at, {literal(__version__)} AS akw_version, "
                    f"{double(lex['cyrillic_share'])} AS cyrillic_share")
        counts = {name: con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                  for name in built if name.startswith("ak_")}
        if counts["ak_document"] < FSST_MIN_DOCS:
            con.execute("SET disabled_compression_methods = 'fsst'")
        con.execute("CHECKPOINT")
        cur = con.execute("SELECT * FROM ak_coverage ORDER BY source, entity")
        cols = [d[0] for d in cur.description]
        coverage = [dict(zip(cols, row, strict=True)) for row in cur.fetchall()]
        stats = {"models": built, "models_s": round(t_models, 3), "lexical": lex,
                 "build_s": round(time.perf_counter() - t, 3), "counts": counts, "coverage": coverage,
                 "db_bytes": build_path.stat().st_size, "peak_rss_mb": _peak_rss_mb()}
        if semantic is not None:
            stats["semantic"] = semantic
        if left_out:
            stats["quarantined"] = left_out
        if on_done is not None and not Path(f"{build_path}.wal").exists():
            shutil.rmtree(f"{build_path}.tmp", ignore_errors=True)  # DuckDB's spill folder (close removes it)
            on_done(stats)
    finally:
        con.close()
    return stats


def _require_constraints(con: Any) -> None:
    """The models' declared constraints (unique ids, not null, enums) hold, or nothing is published:
    a duplicate or missing id would make search answers and evidence refs ambiguous. A failure names the
    first model that breaks one, so the build can look for the unit whose data does it."""
    failures = transform.check_constraints(con)
    if failures:
        shown = "; ".join(f"{f['check']}({', '.join(f['columns'])}): {f.get('violations', f.get('message'))}"
                          for f in failures[:5])
        model = str(failures[0]["check"]).split(".", 1)[0]
        err = transform.ConstraintError(f"{len(failures)} model constraint(s) failed: {shown}", model)
        err.add_note("akw build step: constraints")
        raise err


def _peak_rss_mb() -> float:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def die_with_parent() -> None:
    """Linux: deliver SIGKILL to this process when the parent dies (no orphaned builder)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _report(stats: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(stats, default=str) + "\n")
    sys.stdout.flush()


def _report_and_exit(stats: dict[str, Any]) -> None:
    _report(stats)
    os._exit(0)  # the generation file is checkpointed: skip DuckDB's teardown


def main(argv: list[str]) -> int:
    stats = build_generation(json.loads(argv[1]), on_done=_report_and_exit)
    _report(stats)  # only reached if a WAL was left (then the connection is closed normally)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
