"""What the AutoClaw extractor reads: one `TableSpec` per source table -> lake table.

JSON fields are pulled out by SQLite's own JSON functions (C speed, one parse per row thanks to
its parse cache), guarded by `json_valid` so one bad payload yields nulls instead of failing the
query. Python only parses timestamps and hashes text; polars does the rest column-wise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import polars as pl

TS = pl.Datetime("ms", "UTC")
STR, INT, BOOL = pl.String(), pl.Int64(), pl.Boolean()
KIND_DTYPE: dict[str, pl.DataType] = {"str": STR, "int": INT, "bool": BOOL, "ts": TS}
COMMON: dict[str, pl.DataType] = {"account": STR, "extracted_seq": INT}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
_MAX_MS = 10**13  # year 2286: anything larger is garbage, not a timestamp


# -- SQL expression helpers -------------------------------------------------------
def q(col: str) -> str:
    return '"' + col.replace('"', '""') + '"'


def text(col: str) -> str:
    return f"CAST({q(col)} AS TEXT)"


def jtext(col: str, *paths: str) -> str:
    """First JSON string value among paths (objects/numbers are not text)."""
    c = q(col)
    parts = [f"CASE WHEN json_type({c}, '{p}') = 'text' THEN json_extract({c}, '{p}') END" for p in paths]
    return f"CASE WHEN json_valid({c}) THEN coalesce({', '.join(parts)}) END" if len(parts) > 1 else \
        f"CASE WHEN json_valid({c}) THEN {parts[0]} END"


def jjson(col: str, path: str) -> str:
    """A JSON value as text: strings as they are, objects/arrays as compact JSON."""
    c = q(col)
    return f"CASE WHEN json_valid({c}) THEN CAST(json_extract({c}, '{path}') AS TEXT) END"


def jint(col: str, *paths: str) -> str:
    c = q(col)
    parts = [f"CASE WHEN json_type({c}, '{p}') IN ('integer', 'real') "
             f"THEN CAST(json_extract({c}, '{p}') AS INTEGER) END" for p in paths]
    return f"CASE WHEN json_valid({c}) THEN coalesce({', '.join(parts)}) END"


def jflag(col: str, *paths: str) -> str:
    """First JSON boolean/number among paths as 0/1."""
    c = q(col)
    parts = [f"CASE WHEN json_type({c}, '{p}') IN ('true', 'false', 'integer', 'real') "
             f"THEN json_extract({c}, '{p}') != 0 END" for p in paths]
    return f"CASE WHEN json_valid({c}) THEN coalesce({', '.join(parts)}) END"


def content_text(col: str, path: str) -> str:
    """Newline-joined `text` of the `type == "text"` blocks of a JSON array."""
    c = q(col)
    return (f"(SELECT group_concat(CASE WHEN b.type = 'object' THEN json_extract(b.value, '$.text') END, char(10)) "
            f"FROM json_each(CASE WHEN json_valid({c}) THEN {c} ELSE '{{}}' END, '{path}') AS b "
            f"WHERE CASE WHEN b.type = 'object' THEN json_extract(b.value, '$.type') END = 'text')")


# -- table specs --------------------------------------------------------------------
@dataclass(frozen=True)
class Col:
    name: str
    kind: str  # str | int | bool | ts
    sql: str


@dataclass(frozen=True)
class TableSpec:
    source: str
    lake: str
    required: tuple[str, ...]  # source columns that must exist (PRAGMA table_info)
    cols: tuple[Col, ...]
    watch: tuple[str, ...]  # source columns whose max is a high-water mark; rows at/after it are re-read
    schema: dict[str, pl.DataType]  # lake columns after COMMON, in order
    snapshot: bool = False  # small + mutable without updated_at: re-read whole, content-hashed
    derive: Callable[[pl.DataFrame, dict[str, list[Any]]], pl.DataFrame] | None = None  # (frame, raw values)


def _plain(names: Iterable[str], kind: str = "str") -> tuple[Col, ...]:
    return tuple(Col(n, kind, text(n) if kind == "str" else q(n)) for n in names)


def _schema(cols: tuple[Col, ...], extra: dict[str, pl.DataType] | None = None,
            order: list[str] | None = None) -> dict[str, pl.DataType]:
    out = {c.name: KIND_DTYPE[c.kind] for c in cols} | (extra or {})
    return {k: out[k] for k in order} if order else out


_NOT_LATIN = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122))
_CYRILLIC_LEADS = (b"\xd0", b"\xd1")  # UTF-8 lead bytes of U+0400..U+047F


def normalize(s: str) -> str:
    """Trimmed, CRLF -> LF: enough to equate the repeated request/answer texts, and C-fast."""
    return s.replace("\r\n", "\n").strip()


def text_hash(value: str | None) -> str | None:
    """sha1 of the normalized text: makes the models' duplicate detection a cheap equality."""
    return None if value is None else hashlib.sha1(normalize(value).encode("utf-8")).hexdigest()


def language(value: str | None, probe: int = 2000) -> str | None:
    """'ru' if Cyrillic letters outnumber Latin ones in the first `probe` chars, else 'en' (byte counts)."""
    if value is None:
        return None
    b = value[:probe].encode("utf-8")
    cyr = sum(b.count(lead) for lead in _CYRILLIC_LEADS)
    return "ru" if cyr > len(b.translate(None, _NOT_LATIN)) else "en"


def _entries_derive(df: pl.DataFrame, raw: dict[str, list[Any]]) -> pl.DataFrame:
    texts = raw["text"]
    return df.with_columns(pl.Series("language", [language(t) for t in texts], dtype=STR),
                           pl.Series("text_hash", [text_hash(t) for t in texts], dtype=STR))


_SESSION_COLS = (*_plain(("session_id", "title", "workspace")),
                 *_plain(("created_at", "updated_at", "deleted_at"), "ts"),
                 Col("preset_ref", "str", jtext("capability_composition_json", "$.presetRef")),
                 Col("preset_label", "str", jtext("capability_composition_json", "$.label")),
                 Col("agent_instructions", "str", jtext("capability_composition_json", "$.agentInstructions")),
                 Col("capability_json", "str", text("capability_composition_json")))
_RUN_COLS = (*_plain(("run_id", "session_id", "text", "response", "model", "status")),
             Col("input_tokens", "int", jint("usage_json", "$.input_tokens", "$.inputTokens", "$.prompt_tokens",
                                             "$.promptTokens")),
             Col("output_tokens", "int", jint("usage_json", "$.output_tokens", "$.outputTokens",
                                              "$.completion_tokens", "$.completionTokens")),
             Col("usage_json", "str", text("usage_json")), *_plain(("started_at", "finished_at"), "ts"))
# an explicit tool field anywhere; a bare `name` only on tool_activity.* events (elsewhere it names other things)
_EVENT_TOOL = (f"coalesce({jtext('payload', '$.toolName', '$.tool_name', '$.tool.name', '$.tool')}, "
               f"CASE WHEN \"type\" LIKE 'tool%' THEN {jtext('payload', '$.name', '$.data.name')} END)")
_EVENT_COLS = (*_plain(("event_id", "session_id", "run_id", "type", "payload")),
               Col("created_at", "ts", q("created_at")),
               Col("tool_name", "str", _EVENT_TOOL),
               Col("is_error", "bool",
                   f"coalesce({jflag('payload', '$.isError', '$.is_error', '$.data.isError')}, "
                   f"\"type\" LIKE '%failed' OR \"type\" LIKE '%.error' OR "
                   f"lower(coalesce({jtext('payload', '$.status', '$.data.status')}, '')) IN ('error', 'failed'))"))
_ENTRY_COLS = (*_plain(("session_id", "entry_id")), Col("session_seq", "int", f"CAST({q('session_seq')} AS INTEGER)"),
               *_plain(("run_id", "entry_type")),
               Col("text", "str",
                   f"coalesce({jtext('payload', '$.data.text')}, {content_text('payload', '$.data.content')})"),
               Col("model", "str", jtext("payload", "$.data.model.model", "$.data.model")),
               Col("tool_call_id", "str", jtext("payload", "$.data.toolCallId")),
               Col("tool_name", "str", jtext("payload", "$.data.name")),
               Col("tool_input", "str", jjson("payload", "$.data.input")),
               Col("tool_status", "str", jtext("payload", "$.data.status")),
               Col("tool_error", "str", jjson("payload", "$.data.error")),
               Col("committed_at", "ts", q("committed_at")),
               Col("payload_bytes", "int", f"length(CAST({q('payload')} AS BLOB))"))
_MEMORY_COLS = (*_plain(("memory_id", "scope", "workspace", "lifecycle", "title", "content", "source_session_id",
                         "source_entry_id", "supporting_quote", "content_hash", "supersedes_memory_id")),
                *_plain(("created_at", "updated_at"), "ts"))
_AGENT_COLS = (*_plain(("agent_id", "name", "description", "instructions", "model")),
               *_plain(("created_at", "updated_at"), "ts"))
_SNAPSHOT_COLS = (*_plain(("snapshot_id", "agent_id", "content")), *_plain(("created_at",), "ts"))
_PARTICIPATION_COLS = (*_plain(("participation_id", "run_id", "agent_id", "name", "description", "instructions",
                                "assignment", "reason", "outcome", "contribution_evidence")),
                       *_plain(("created_at",), "ts"))
_ATTEMPT_COLS = (*_plain(("attempt_id", "participation_id", "agent_id", "status", "error")),
                 *_plain(("started_at", "finished_at"), "ts"))
_ENTRY_ORDER = ["session_id", "entry_id", "session_seq", "run_id", "entry_type", "text", "model", "tool_call_id",
                "tool_name", "tool_input", "tool_status", "tool_error", "language", "committed_at", "payload_bytes",
                "text_hash"]

SPECS: tuple[TableSpec, ...] = (
    TableSpec("work_sessions", "ac_sessions",
              ("session_id", "title", "workspace", "created_at", "updated_at", "deleted_at",
               "capability_composition_json"),
              _SESSION_COLS, ("updated_at", "deleted_at"), _schema(_SESSION_COLS)),
    # runs finish later: finished_at is watched so a run seen as `running` is re-read once it ends
    TableSpec("work_runs", "ac_runs",
              ("run_id", "session_id", "text", "response", "model", "status", "usage_json", "started_at",
               "finished_at"),
              _RUN_COLS, ("started_at", "finished_at"), _schema(_RUN_COLS)),
    TableSpec("work_events", "ac_events", ("event_id", "session_id", "run_id", "type", "payload", "created_at"),
              _EVENT_COLS, ("created_at",), _schema(_EVENT_COLS)),
    TableSpec("neutral_session_entries", "ac_entries",
              ("session_id", "entry_id", "session_seq", "run_id", "entry_type", "payload", "committed_at"),
              _ENTRY_COLS, ("committed_at",), _schema(_ENTRY_COLS, {"language": STR, "text_hash": STR}, _ENTRY_ORDER),
              derive=_entries_derive),
    TableSpec("memory_assets", "ac_memories", tuple(c.name for c in _MEMORY_COLS), _MEMORY_COLS,
              ("updated_at",), _schema(_MEMORY_COLS)),
    TableSpec("agents", "ac_agents", tuple(c.name for c in _AGENT_COLS), _AGENT_COLS, ("updated_at",),
              _schema(_AGENT_COLS)),
    TableSpec("agent_memory_snapshots", "ac_agent_snapshots", tuple(c.name for c in _SNAPSHOT_COLS), _SNAPSHOT_COLS,
              ("created_at",), _schema(_SNAPSHOT_COLS)),
    # outcome/evidence are filled in later without a timestamp: small table, re-read whole, hashed
    TableSpec("collaboration_run_agent_participations", "ac_participations",
              tuple(c.name for c in _PARTICIPATION_COLS), _PARTICIPATION_COLS, (), _schema(_PARTICIPATION_COLS),
              snapshot=True),
    TableSpec("collaboration_run_agent_attempts", "ac_attempts", tuple(c.name for c in _ATTEMPT_COLS), _ATTEMPT_COLS,
              ("started_at", "finished_at"), _schema(_ATTEMPT_COLS)),
)

ACCOUNTS_TABLE = "ac_accounts"
ACCOUNTS_SCHEMA: dict[str, pl.DataType] = {
    "db_rel_path": STR, "db_size": INT, "db_mtime_ns": INT, "db_sha256": STR, "schema_version": STR,
    "schema_migration_name": STR, "tables_present": pl.List(STR), "journal_mode": STR,
}


def lake_schema(schema: dict[str, pl.DataType]) -> dict[str, pl.DataType]:
    return COMMON | schema


# -- rows -> frames -------------------------------------------------------------------
def to_ms(v: Any) -> int | None:
    """Epoch ms from an ISO-8601 string ('Z' or offset; naive = UTC) or epoch s/ms number; bad -> None."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, str):
        s = v.strip()
        if s.lstrip("-").isdigit():
            return to_ms(int(s))
        try:
            dt = datetime.fromisoformat(s)
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        ms = (dt - _EPOCH) // _MS
    elif isinstance(v, int | float):
        ms = int(v) if abs(v) >= 10**11 else int(v * 1000)  # epoch seconds vs milliseconds
    else:
        return None
    return ms if 0 <= ms < _MAX_MS else None


def build_frame(spec: TableSpec, rows: list[tuple[Any, ...]], account: str, seq: int) -> pl.DataFrame:
    """Rows of `select_sql(spec)` -> the lake frame (COMMON columns first, spec.schema order)."""
    columns = list(zip(*rows, strict=True)) if rows else [() for _ in spec.cols]
    series, raw = [], {}
    for col, values in zip(spec.cols, columns, strict=True):
        vals = raw[col.name] = list(values)
        if col.kind == "ts":
            series.append(pl.Series(col.name, [to_ms(v) for v in vals], dtype=INT).cast(TS))
        elif col.kind == "bool":
            series.append(pl.Series(col.name, [None if v is None else bool(v) for v in vals], dtype=BOOL))
        else:
            series.append(pl.Series(col.name, vals, dtype=KIND_DTYPE[col.kind], strict=False))
    df = pl.DataFrame(series)
    if spec.derive is not None:
        df = spec.derive(df, raw)
    df = df.with_columns(pl.lit(account, STR).alias("account"), pl.lit(seq, INT).alias("extracted_seq"))
    return df.select(list(lake_schema(spec.schema)))
