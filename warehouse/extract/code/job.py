"""Code extractor: the built-in code index for the `code` lane -> lake tables `code_files`, `code_chunks`.

Unit = one registered workspace (its id). Revision (cursor) = "c<CHUNKER_VERSION>:<redaction sig>:" + sha256 over the
workspace path, the size cap and the sorted (rel_path, size, mtime_ns) of every candidate file, so an
untouched workspace costs one stat walk. When it changed, only files whose (size, mtime_ns) differ from
the previous `code_files` row are read and re-chunked; the other chunks are read back from the lake.
Chunk id = "chunk:<workspace_id>:<rel_path>:<start_line>". See code_walk (what is skipped) and
code_chunk (how files are split). A missing workspace folder is KNOWLEDGE_SOURCE_UNAVAILABLE for that
unit and its rows are dropped; a corrupt registry keeps every existing unit as it is.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from typing import Any

import polars as pl

from warehouse.core.errors import Code
from warehouse.core.redact import redact
from warehouse.extract.base import ExtractContext, SourceReport, read_regular, redaction_sig
from warehouse.extract.code.chunk import CHUNKER_VERSION, chunk_lines, language_of, split_lines
from warehouse.extract.code.walk import FileStat, walk_workspace
from warehouse.extract.registry import Workspace, read_workspaces
from warehouse.home.lake import unit_key

SOURCE = "code"
SNIFF_BYTES = 8192

FILES_SCHEMA: dict[str, pl.DataType] = {
    "workspace_id": pl.String(), "workspace_path": pl.String(), "rel_path": pl.String(), "size": pl.Int64(),
    "mtime_ns": pl.Int64(), "sha256": pl.String(), "language": pl.String(), "lines": pl.Int64(),
    "chunks": pl.Int64(),
}
CHUNKS_SCHEMA: dict[str, pl.DataType] = {
    "chunk_id": pl.String(), "workspace_id": pl.String(), "workspace_path": pl.String(),
    "rel_path": pl.String(), "language": pl.String(), "start_line": pl.Int64(), "end_line": pl.Int64(),
    "source_kind": pl.String(), "symbol": pl.String(), "text": pl.String(),
}
TABLES = {"code_files": FILES_SCHEMA, "code_chunks": CHUNKS_SCHEMA}


def extract(ctx: ExtractContext) -> SourceReport:
    report = SourceReport(source=SOURCE)
    for table, schema in TABLES.items():
        ctx.lake.ensure_table(SOURCE, table, schema)
    workspaces, err = read_workspaces(ctx.paths.dsh_home)
    if err:
        report.errors.append({"code": Code.SOURCE_CORRUPT.value, "unit": "workspace.json", "message": err})
        report.degraded = True
        return report  # without the registry nothing is known to have vanished: keep the index
    todo = [w for w in workspaces if not ctx.excluded_workspace(w.id, w.path) and not ctx.excluded_path(w.path)]
    for ws in todo:
        report.units_seen += 1
        _workspace(ctx, report, ws)
        ctx.tick("code", 1, len(todo))
    for unit in sorted(ctx.store.known_units() - {w.id for w in todo}):
        ctx.lake.drop_unit(SOURCE, unit_key(SOURCE, unit))
        ctx.store.forget(unit)
        report.units_removed += 1
    return report


def _workspace(ctx: ExtractContext, report: SourceReport, ws: Workspace) -> None:
    key = unit_key(SOURCE, ws.id)
    if not os.path.isdir(ws.path):
        ctx.lake.drop_unit(SOURCE, key)
        ctx.unit_failed(report, ws.id, Code.SOURCE_UNAVAILABLE.value, "workspace folder does not exist")
        return
    max_bytes = ctx.settings.index.code_max_file_bytes
    walk = walk_workspace(ws.path, max_bytes, ctx.excluded_path)
    files = sorted(walk.files, key=lambda f: f.rel_path)
    for rel in walk.unreadable_dirs:  # every run, changed or not: its files are neither read nor known gone
        report.degraded = True
        report.errors.append({"code": Code.SOURCE_UNAVAILABLE.value, "unit": f"{ws.id}:{rel}/",
                              "message": "folder unreadable: its files keep their last indexed version"})
    prev_cursor = ctx.store.cursor(ws.id)
    sig = _sig(ctx)
    revision = _revision(ws.path, max_bytes, files, sig) + "".join(f"|{d}/" for d in walk.unreadable_dirs)
    if prev_cursor == revision and (ctx.lake.table_dir(SOURCE, "code_files") / f"{key}.parquet").exists():
        report.units_unchanged += 1
        return
    reusable = isinstance(prev_cursor, str) and prev_cursor.startswith(f"c{CHUNKER_VERSION}:{sig}:")
    old_files, old_chunks = _read_old(ctx, key) if reusable else ({}, {})
    counts: Counter[str] = Counter(walk.skipped)
    counts["unreadable_dirs"] += len(walk.unreadable_dirs)
    file_rows: list[dict[str, Any]] = []
    chunk_rows: list[dict[str, Any]] = []
    hidden = tuple(f"{d}/" for d in walk.unreadable_dirs)
    # last good, not gone (chunked under the same rules: with new redaction rules they wait to be readable)
    for rel in sorted(r for r in old_files if hidden and r.startswith(hidden)):
        file_rows.append({**old_files[rel], "workspace_path": ws.path})
        chunk_rows += [{**c, "workspace_path": ws.path} for c in old_chunks.get(rel, [])]
        counts["kept_unreadable"] += 1
    for f in files:
        old = old_files.get(f.rel_path)
        if old is not None and (old["size"], old["mtime_ns"]) == (f.size, f.mtime_ns):
            file_rows.append({**old, "workspace_path": ws.path})
            chunk_rows += [{**c, "workspace_path": ws.path} for c in old_chunks.get(f.rel_path, [])]
            counts["reused"] += 1
            continue
        made = _chunk_file(ws, f, ctx.settings.redact_secrets, ctx.settings.redact_pii)
        if made is UNREADABLE:  # not "binary": the file could not be opened (permissions, a FIFO, a folder)
            counts["unreadable"] += 1
            report.degraded = True
            report.errors.append({"code": Code.SOURCE_UNAVAILABLE.value, "unit": f"{ws.id}:{f.rel_path}",
                                  "message": "file unreadable"})
            continue
        if made is None:
            counts["binary"] += 1
            continue
        file_rows.append(made[0])
        chunk_rows += made[1]
        counts["rechunked"] += 1
    counts["files"], counts["chunks"] = len(file_rows), len(chunk_rows)
    n = ctx.lake.write_unit(SOURCE, "code_files", key, pl.DataFrame(file_rows, schema=FILES_SCHEMA))
    m = ctx.lake.write_unit(SOURCE, "code_chunks", key, pl.DataFrame(chunk_rows, schema=CHUNKS_SCHEMA))
    report.add_rows("code_files", n)
    report.add_rows("code_chunks", m)
    report.units_changed += 1
    ctx.unit_ok(report, ws.id, revision, dict(sorted(counts.items())))


UNREADABLE = ({}, [])  # the marker _chunk_file returns for a file it could not open


def _chunk_file(ws: Workspace, f: FileStat, secrets: bool = True,
                pii: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(code_files row, code_chunks rows), None for a binary (NUL in the first 8 KB), UNREADABLE for a file
    that cannot be opened as a regular file.

    The whole text is redacted before it is chunked: a key block cut into windows first would leave
    windows holding only its middle lines, which no rule recognises. Redaction keeps line breaks.
    """
    try:
        data = read_regular(f.abs_path)  # a FIFO must not block the run
    except OSError:  # NotRegularFile included
        return UNREADABLE
    if b"\0" in data[:SNIFF_BYTES]:
        return None
    text = data.decode("utf-8", errors="replace")
    if secrets:
        text = redact(text, pii) or ""
    language = language_of(f.rel_path, text[:200].split("\n", 1)[0])
    lines = split_lines(text)
    chunks = chunk_lines(lines, language)
    base = {"workspace_id": ws.id, "workspace_path": ws.path, "rel_path": f.rel_path, "language": language}
    rows = [{"chunk_id": f"chunk:{ws.id}:{f.rel_path}:{c.start_line}", **base, "start_line": c.start_line,
             "end_line": c.end_line, "source_kind": c.source_kind, "symbol": c.symbol, "text": c.text}
            for c in chunks]
    file_row = {**base, "size": f.size, "mtime_ns": f.mtime_ns, "sha256": hashlib.sha256(data).hexdigest(),
                "lines": len(lines), "chunks": len(rows)}
    return file_row, rows


def _read_old(ctx: ExtractContext, key: str) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """The workspace's previous rows, keyed by rel_path (empty if the files are missing or unreadable)."""
    fpath = ctx.lake.table_dir(SOURCE, "code_files") / f"{key}.parquet"
    cpath = ctx.lake.table_dir(SOURCE, "code_chunks") / f"{key}.parquet"
    try:
        files = pl.read_parquet(fpath).select(list(FILES_SCHEMA)) if fpath.exists() else None
        chunks = pl.read_parquet(cpath).select(list(CHUNKS_SCHEMA)) if cpath.exists() else None
    except Exception:  # a torn or old-schema file only costs a re-chunk
        return {}, {}
    old_files = {r["rel_path"]: r for r in files.iter_rows(named=True)} if files is not None else {}
    old_chunks: dict[str, list[dict[str, Any]]] = {}
    if chunks is not None:
        for r in chunks.iter_rows(named=True):
            old_chunks.setdefault(r["rel_path"], []).append(r)
    return old_files, old_chunks


def _sig(ctx: ExtractContext) -> str:
    """The redaction signature: chunks redacted under other rules are never reused."""
    return hashlib.sha256(json.dumps(redaction_sig(ctx.settings)).encode()).hexdigest()[:8]


def _revision(path: str, max_bytes: int, files: list[FileStat], sig: str) -> str:
    payload = [path, max_bytes, [(f.rel_path, f.size, f.mtime_ns) for f in files]]
    return f"c{CHUNKER_VERSION}:{sig}:" + hashlib.sha256(json.dumps(payload).encode()).hexdigest()
