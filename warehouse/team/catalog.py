"""Opening the shared DuckLake: the DSN (never a password), offline extensions, stable error codes.

The password is libpq's business: PGPASSWORD, or a pgpass-style file (`lake.passfile`, PGPASSFILE,
~/.pgpass). Nothing here stores, logs or echoes it; errors carry the libpq reason, redacted.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TypeVar

import duckdb

from warehouse.core.db import connect
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.literals import text as sql_text
from warehouse.core.redact import redact
from warehouse.core.settings import LakeSettings

ALIAS = "team_lake"
META = f"{ALIAS}.ak_team_meta"  # key/value: lake_id (a uuid made once by `team init`), bronze_schema
UNITS = f"{ALIAS}.ak_team_units"  # (writer_id, source, unit_key, digest): what each writer has committed
WRITERS = f"{ALIAS}.ak_team_writers"  # one row per writer: last commit, its snapshot, unit count
# the shape of the bronze tables this version pushes and builds from: bump it when a bronze table's
# columns change, so a lake of another version is refused with SOURCE_SCHEMA_UNSUPPORTED, not a failed INSERT
BRONZE_SCHEMA = "1"
_PASSWORD = re.compile(r"(?i)(password\s*=\s*)(\S+)")
T = TypeVar("T")


def require(cfg: LakeSettings) -> tuple[str, str, str]:
    """(catalog DSN, data path, writer id) or CONFIG_INVALID naming the missing `lake.*` key."""
    for key in ("catalog", "data_path", "writer_id"):
        if not getattr(cfg, key):
            raise KnowledgeError(Code.CONFIG_INVALID, f"lake.{key} is not set (akw team init / akw config set)",
                                 key=f"lake.{key}")
    assert cfg.catalog and cfg.data_path and cfg.writer_id
    return cfg.catalog, cfg.data_path, cfg.writer_id


def libpq_dsn(cfg: LakeSettings) -> str:
    dsn, _, _ = require(cfg)
    if "connect_timeout" not in dsn:
        dsn += f" connect_timeout={cfg.connect_timeout_s}"
    if cfg.passfile and "passfile" not in dsn:
        dsn += f" passfile={Path(cfg.passfile).expanduser()}"
    return dsn


def reason(e: BaseException) -> str:
    return redact(_PASSWORD.sub(r"\1***", str(e).splitlines()[0] if str(e) else type(e).__name__)) or ""


def open_lake(cfg: LakeSettings, memory_limit: str = "500MB", threads: int = 1) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection with the team lake attached as `team_lake`; unreachable → CATALOG_UNAVAILABLE."""
    _, data_path, _ = require(cfg)
    exts: tuple[str, ...] = ("ducklake", "postgres_scanner")
    if data_path.startswith(("s3://", "gcs://", "r2://", "http://", "https://")):
        exts += ("httpfs",)  # S3 credentials: a DuckDB secret from the environment (docs/team.md)
    else:
        Path(data_path).mkdir(parents=True, exist_ok=True)
    try:
        con = connect(memory_limit=memory_limit, threads=threads, extensions=exts)
    except duckdb.IOException as e:  # the wheels of the [team] extra are missing: not a network problem
        raise KnowledgeError(Code.CONFIG_INVALID, f"the team lake needs the [team] extra "
                             f"(pip install -e '.[team]'): {reason(e)}", key="lake.backend") from None
    if "httpfs" in exts:
        s3_secret(con, os.environ)
    target = f"ducklake:postgres:{libpq_dsn(cfg)}"
    try:
        # inlining off: every row lives in a data file, so `forget` can prove by a scan that none is left
        con.execute(f"ATTACH {sql_text(target)} AS {ALIAS} (DATA_PATH {sql_text(data_path)}, "
                    "DATA_INLINING_ROW_LIMIT 0)")
    except duckdb.Error as e:
        con.close()
        raise KnowledgeError(Code.CATALOG_UNAVAILABLE, f"team catalog unreachable: {reason(e)}") from None
    return con


def s3_secret(con: duckdb.DuckDBPyConnection, env: Mapping[str, str]) -> bool:
    """An S3 secret from the standard AWS_* variables (no aws extension: PROVIDER config), if they are set.

    AWS_ENDPOINT_URL points at S3-compatible storage (MinIO, R2, Ceph) with path-style URLs."""
    if not env.get("AWS_ACCESS_KEY_ID") or not env.get("AWS_SECRET_ACCESS_KEY"):
        return False
    opts = {"KEY_ID": env["AWS_ACCESS_KEY_ID"], "SECRET": env["AWS_SECRET_ACCESS_KEY"],
            "REGION": env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1"}
    if env.get("AWS_SESSION_TOKEN"):
        opts["SESSION_TOKEN"] = env["AWS_SESSION_TOKEN"]
    if env.get("AWS_ENDPOINT_URL"):
        endpoint = env["AWS_ENDPOINT_URL"]
        opts["ENDPOINT"] = endpoint.split("://", 1)[-1]
        opts["URL_STYLE"] = "path"
        opts["USE_SSL"] = "false" if endpoint.startswith("http://") else "true"
    body = ", ".join(f"{k} {v if k == 'USE_SSL' else sql_text(v)}" for k, v in opts.items())
    con.execute(f"CREATE OR REPLACE SECRET team_lake_s3 (TYPE s3, PROVIDER config, {body})")
    return True


@contextmanager
def lake(cfg: LakeSettings) -> Iterator[duckdb.DuckDBPyConnection]:
    con = open_lake(cfg)
    try:
        yield con
    finally:
        con.close()


def is_conflict(e: BaseException) -> bool:
    """A DuckLake write-write conflict (another writer committed first): the transaction can be retried."""
    text = str(e).lower()
    return isinstance(e, duckdb.TransactionException) or "conflict" in text or "retry" in text


def transaction(con: duckdb.DuckDBPyConnection, body: Callable[[], T], attempts: int = 8) -> T:
    """Run `body` in one DuckLake transaction; a commit conflict rolls back and retries with backoff."""
    for attempt in range(attempts):
        con.execute("BEGIN")
        try:
            result = body()
            con.execute("COMMIT")
            return result
        except duckdb.Error as e:
            with suppress(duckdb.Error):
                con.execute("ROLLBACK")
            if not is_conflict(e) or attempt == attempts - 1:
                raise
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


def ensure_meta(con: duckdb.DuckDBPyConnection) -> str:
    """The warehouse's own catalog tables (idempotent); returns the lake id."""
    def body() -> None:
        con.execute(f"CREATE TABLE IF NOT EXISTS {META} (key VARCHAR, value VARCHAR)")
        con.execute(f"CREATE TABLE IF NOT EXISTS {UNITS} (writer_id VARCHAR, source VARCHAR, unit_key VARCHAR, "
                    "digest VARCHAR)")
        con.execute(f"CREATE TABLE IF NOT EXISTS {WRITERS} (writer_id VARCHAR, last_commit_at TIMESTAMPTZ, "
                    "units BIGINT, last_push_rows BIGINT, version VARCHAR)")
        if con.execute(f"SELECT count(*) FROM {META} WHERE key = 'lake_id'").fetchone()[0] == 0:
            con.execute(f"INSERT INTO {META} VALUES ('lake_id', ?)", [str(uuid.uuid4())])
        if bronze_schema(con) is None:  # a lake made before the version was recorded is version 1
            con.execute(f"INSERT INTO {META} VALUES ('bronze_schema', ?)", [BRONZE_SCHEMA])

    meta = _meta_values(con)
    if meta.get("lake_id") is None or meta.get("bronze_schema") is None:
        transaction(con, body)
        meta = _meta_values(con)
    _refuse_other_schema(meta.get("bronze_schema"))
    lid = meta.get("lake_id")
    assert lid is not None
    return lid


def _meta_values(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The catalog's `ak_team_meta` as key -> value (empty before `team init` made it), in two catalog queries."""
    if not has_table(con, "ak_team_meta"):
        return {}
    return dict(con.execute(f"SELECT key, min(value) FROM {META} GROUP BY key").fetchall())


def _meta(con: duckdb.DuckDBPyConnection, key: str) -> str | None:
    """One value of the catalog's `ak_team_meta` (None before `team init` made it)."""
    return _meta_values(con).get(key)


def bronze_schema(con: duckdb.DuckDBPyConnection) -> str | None:
    return _meta(con, "bronze_schema")


def check_schema(con: duckdb.DuckDBPyConnection) -> None:
    """A lake written with another bronze schema is refused before anything is read or written."""
    _refuse_other_schema(bronze_schema(con))


def _refuse_other_schema(found: str | None) -> None:
    if found is not None and found != BRONZE_SCHEMA:
        raise KnowledgeError(Code.SOURCE_SCHEMA_UNSUPPORTED, f"the team lake holds bronze schema {found}; this "
                             f"version of akw reads and writes {BRONZE_SCHEMA}: run one version on every machine",
                             lake_schema=found, schema=BRONZE_SCHEMA)


def has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    return name in table_names(con)


def table_names(con: duckdb.DuckDBPyConnection) -> set[str]:
    """The lake's tables, in one catalog query (each query reaches the PostgreSQL catalog: ~8 ms)."""
    return {name for (name,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = ?",
                                            [ALIAS]).fetchall()}


def lake_id(con: duckdb.DuckDBPyConnection) -> str | None:
    return _meta(con, "lake_id")


def current_snapshot(con: duckdb.DuckDBPyConnection) -> int:
    return int(con.execute(f"SELECT max(snapshot_id) FROM ducklake_snapshots('{ALIAS}')").fetchone()[0])


def data_table(source: str, table: str) -> str:
    """The DuckLake table of one bronze table: `<source>__<table>` (both are plain identifiers)."""
    name = f"{source}__{table}"
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise KnowledgeError(Code.INTERNAL, f"bad lake table name {name!r}")
    return name


def init(cfg: LakeSettings) -> dict[str, object]:
    """Create (or find) the catalog's warehouse tables; running it twice changes nothing."""
    with lake(cfg) as con:
        existed = has_table(con, "ak_team_meta")
        lid = ensure_meta(con)
        opts = dict(con.execute(f"SELECT option_name, value FROM ducklake_options('{ALIAS}')").fetchall())
        return {"lake_id": lid, "created": not existed, "snapshot_id": current_snapshot(con),
                "bronze_schema": bronze_schema(con),
                "data_path": opts.get("data_path"), "writer_id": cfg.writer_id}
