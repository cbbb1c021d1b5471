"""A small dbt-style runner: every `sql/models/<layer>/<name>.sql` file is one model that makes table `<name>`.

Model files are Jinja templates of one SELECT. `{{ ref('x') }}` names another model (and makes
it a dependency); `{{ lake('dsh', 'events') }}` reads a lake table's Parquet files. Files in
`sql/models/macros/` (CREATE MACRO statements) run first. A leading `-- materialized: view` comment
makes a view instead of a table; `-- compression: col=method, …` lines pin the storage compression
of those columns (a table made as CREATE TABLE with the model's own column types, then INSERT).
A model's first comment block is its documentation;
`-- col: name: text` lines become DuckDB column comments for analysts. Models run in
dependency order (ties by name), so a build is deterministic.

Constraints are declared beside the model they guard, like dbt's schema tests, one per line:
`-- unique: doc_key` (a composite key: `-- unique: lane, doc_key`), `-- not_null: a, b` (each
column) and `-- accepted_values: outcome: success, partial` (NULL passes; pair it with not_null).
The build checks that they name columns of the model; `check_constraints` runs one query per
constraint against a built database (`reindex --mode verify`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from warehouse.core.literals import text as sql_text
from warehouse.core.sqlfiles import MODELS as SQL_DIR

_COL_DOC = re.compile(r"^--\s*col:\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+)$", re.M)
_COMPRESSION = re.compile(r"^--\s*compression:\s*(.+)$", re.M)
_COMPRESSION_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(uncompressed|dictionary|rle|bitpacking|fsst|chimp|patas)$")
_CONSTRAINT = re.compile(r"^--\s*(unique|not_null|accepted_values):(.*)$", re.M)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_HEADER_KEYS = ("col:", "materialized:", "compression:", "unique:", "not_null:", "accepted_values:")
EXAMPLES = 3  # example keys (or values) a constraint failure shows
LAKE_SCHEMA_FILE = "_schema.parquet"  # home/lake.py's zero-row file of a table's columns (read by every model)


@dataclass(frozen=True)
class Constraint:
    """One declared check of a model: `unique` (the columns together), `not_null` (one column)
    or `accepted_values` (one column, `values` the allowed values as text)."""

    model: str
    kind: str
    columns: tuple[str, ...]
    values: tuple[str, ...] = ()

    @property
    def check(self) -> str:
        """The name a failure is reported under, e.g. `ak_document.unique`."""
        return f"{self.model}.{self.kind}"

    def describe(self) -> str:
        """`unique(lane, doc_key)`, `not_null(actor_id)`, `accepted_values(outcome: success, partial)`."""
        args = ", ".join(self.columns) + (f": {', '.join(self.values)}" if self.values else "")
        return f"{self.kind}({args})"

    def sql(self, key: tuple[str, ...] | None = None) -> str:
        """One query: (violations, up to EXAMPLES examples, smallest first). unique: key values held
        by more than one row (NULLs equal inside a composite key; a key of only NULLs is skipped);
        not_null: rows with NULL, shown by `key` (a unique key of the model without the column);
        accepted_values: rows with another value, shown by the values."""
        t, cols = _quote(self.model), [_quote(c) for c in self.columns]
        if self.kind == "unique":
            shown = _key_text(cols)
            return (f"SELECT count(*), min(k, {EXAMPLES}) FROM (SELECT {shown} AS k FROM {t} "
                    f"WHERE NOT ({' AND '.join(f'{c} IS NULL' for c in cols)}) "
                    f"GROUP BY {', '.join(cols)} HAVING count(*) > 1)")
        if self.kind == "not_null":
            shown = _key_text([_quote(c) for c in key]) if key else "NULL"
            return f"SELECT count(*), min(k, {EXAMPLES}) FROM (SELECT {shown} AS k FROM {t} WHERE {cols[0]} IS NULL)"
        allowed = ", ".join(sql_text(v) for v in self.values)
        return (f"SELECT coalesce(sum(n), 0), min(v, {EXAMPLES}) FROM (SELECT CAST({cols[0]} AS VARCHAR) AS v, "
                f"count(*) AS n FROM {t} WHERE {cols[0]} IS NOT NULL AND CAST({cols[0]} AS VARCHAR) NOT IN ({allowed}) "
                f"GROUP BY 1)")


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _key_text(cols: list[str]) -> str:
    """A key as text: the value of one column, `(a, b)` of several."""
    return f"CAST({cols[0]} AS VARCHAR)" if len(cols) == 1 else f"CAST(row({', '.join(cols)}) AS VARCHAR)"


def _columns(model: str, line: str, text: str) -> tuple[str, ...]:
    cols = tuple(c.strip() for c in text.split(","))
    if not cols or not all(_IDENT.match(c) for c in cols):
        raise ValueError(f"model {model}: bad constraint {line.strip()!r} (expected column names separated by commas)")
    if len(set(cols)) != len(cols):
        raise ValueError(f"model {model}: constraint {line.strip()!r} names a column twice")
    return cols


@dataclass
class Model:
    name: str
    path: Path
    source: str
    layer: str
    deps: set[str] = field(default_factory=set)

    @property
    def materialized(self) -> str:
        return "view" if re.search(r"^--\s*materialized:\s*view", self.source, re.M) else "table"

    @property
    def doc(self) -> str:
        lines = []
        for line in self.source.splitlines():
            if not line.startswith("--"):
                break
            text = line[2:].strip()
            if not text.startswith(_HEADER_KEYS):
                lines.append(text)
        return " ".join(x for x in lines if x)

    @property
    def compression(self) -> dict[str, str]:
        """Pinned column compression: `-- compression: title=uncompressed, path=uncompressed`."""
        out: dict[str, str] = {}
        for line in _COMPRESSION.findall(self.source):
            for item in filter(None, (x.strip() for x in line.split(","))):
                m = _COMPRESSION_ITEM.match(item)
                if m is None:
                    raise ValueError(f"model {self.name}: bad compression hint {item!r}")
                out[m.group(1)] = m.group(2)
        return out

    @property
    def column_docs(self) -> dict[str, str]:
        return {m.group(1): m.group(2).strip() for m in _COL_DOC.finditer(self.source)}

    @property
    def constraints(self) -> list[Constraint]:
        """The declared constraints in file order; `-- not_null: a, b` is one constraint per column."""
        out: list[Constraint] = []
        for m in _CONSTRAINT.finditer(self.source):
            kind, rest, line = m.group(1), m.group(2), m.group(0)
            if kind == "unique":
                out.append(Constraint(self.name, kind, _columns(self.name, line, rest)))
            elif kind == "not_null":
                out.extend(Constraint(self.name, kind, (c,)) for c in _columns(self.name, line, rest))
            else:
                col, sep, values = rest.partition(":")
                vals = tuple(v.strip() for v in values.split(","))
                if not sep or not all(vals) or len(set(vals)) != len(vals):
                    raise ValueError(f"model {self.name}: bad constraint {line.strip()!r} "
                                     "(expected `-- accepted_values: column: value, value, …`)")
                out.append(Constraint(self.name, kind, _columns(self.name, line, col), vals))
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for c in out:
            if (c.kind, c.columns) in seen:
                raise ValueError(f"model {self.name}: constraint {c.describe()} is declared twice")
            seen.add((c.kind, c.columns))
        return out

    def example_key(self, column: str) -> tuple[str, ...] | None:
        """How a not-null failure of `column` shows its rows: the first unique key without it."""
        return next((c.columns for c in self.constraints if c.kind == "unique" and column not in c.columns), None)


LAYERS = ("staging", "intermediate", "marts")


def discover(sql_dir: Path = SQL_DIR, subdirs: tuple[str, ...] = LAYERS) -> dict[str, Model]:
    models: dict[str, Model] = {}
    for sub in subdirs:
        for p in sorted((sql_dir / sub).glob("*.sql")):
            src = p.read_text(encoding="utf-8")
            m = Model(p.stem, p, src, sub, set(re.findall(r"ref\(\s*['\"]([A-Za-z0-9_]+)['\"]\s*\)", src)))
            if m.name in models:
                raise ValueError(f"duplicate model name {m.name}")
            models[m.name] = m
    for m in models.values():
        missing = m.deps - set(models)
        if missing:
            raise ValueError(f"model {m.name} refers to unknown models {sorted(missing)}")
    return models


def order(models: dict[str, Model]) -> list[Model]:
    """Topological order, ties broken by name (deterministic)."""
    done: list[Model] = []
    seen: set[str] = set()
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        if name in visiting:
            raise ValueError(f"model cycle through {name}")
        visiting.add(name)
        for d in sorted(models[name].deps):
            visit(d)
        visiting.discard(name)
        seen.add(name)
        done.append(models[name])

    for name in sorted(models):
        visit(name)
    return done


def upstream(models: dict[str, Model], name: str) -> set[str]:
    """`name` and every model it reads, directly or through others: all a build of `name` needs."""
    need, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in need:
            need.add(n)
            todo.extend(models[n].deps)
    return need


def lake_sources(models: dict[str, Model], names: Iterable[str]) -> set[str]:
    """The lake sources that the models `names` read: their `lake('<source>', …)` calls, as rendering makes them."""
    found: set[str] = set()
    for n in names:
        render_model(models[n].source, lambda source, table: found.add(source) or "")
    return found


def run(con: duckdb.DuckDBPyConnection, lake_root: Path, sql_dir: Path = SQL_DIR,
        on_model: object = None, keep: Callable[[Path], bool] | None = None,
        target: str | None = None) -> list[str]:
    """Build every model into `con` (only `target` and the models it reads, when given). Returns model names
    in build order.

    `keep`: which lake files the models read (default: all); a table's zero-row `_schema.parquet` is
    always read, so a table keeps its columns with none of its units (indexing/quarantine.py)."""
    models = discover(sql_dir)
    if target is not None:
        needed = upstream(models, target)
        models = {n: m for n, m in models.items() if n in needed}
    for macro in sorted((sql_dir / "macros").glob("*.sql")):  # CREATE MACRO files, before any model
        con.execute(macro.read_text(encoding="utf-8"))

    def lake(source: str, table: str) -> str:
        folder = lake_root / "bronze" / source / table
        if keep is None:
            return f"read_parquet('{folder.as_posix()}/*.parquet', union_by_name = true)"
        files = sorted(p.as_posix() for p in folder.glob("*.parquet") if p.name == LAKE_SCHEMA_FILE or keep(p))
        return f"read_parquet([{', '.join(sql_text(f) for f in files)}], union_by_name = true)"

    built = []
    for m in order(models):
        constraints = m.constraints  # a malformed header fails before any SQL runs
        sql = render_model(m.source, lake)
        kind = "VIEW" if m.materialized == "view" else "TABLE"
        try:
            _materialize(con, m, kind, sql)
        except duckdb.Error as e:
            e.add_note(f"akw build step: model {m.name}")
            raise
        if constraints:
            _check_constraint_columns(con, m, constraints)
        comments = [f"COMMENT ON {kind} {m.name} IS {sql_text(m.doc)}"] if m.doc else []
        comments += [f"COMMENT ON COLUMN {m.name}.{col} IS {sql_text(text)}" for col, text in m.column_docs.items()]
        if comments:  # one transaction: one commit (a WAL write) for all of a model's comments
            con.execute(";\n".join(["BEGIN TRANSACTION", *comments, "COMMIT"]))
        built.append(m.name)
        if callable(on_model):
            on_model(m.name)
    return built


# `{{ ref('model') }}` and `{{ lake('source', 'table') }}`, the only calls the models make
_SIMPLE_CALL = re.compile(
    r"\{\{\s*(?:ref\(\s*'([A-Za-z0-9_]+)'\s*\)|lake\(\s*'([A-Za-z0-9_]+)'\s*,\s*'([A-Za-z0-9_]+)'\s*\))\s*\}\}")


def render_model(source: str, lake: Callable[[str, str], str]) -> str:
    """A model's SQL with its placeholders filled, as Jinja renders it (`ref` is the model's own name).

    A model that only calls `ref` and `lake` is filled by one regular-expression pass (the same text: Jinja
    drops the one trailing newline); anything else goes through Jinja, imported only then. Importing Jinja
    and compiling 40 templates cost ~110 ms of every build, a tenth of a small home's."""
    if "{%" not in source and "{#" not in source:
        out = _SIMPLE_CALL.sub(lambda m: m.group(1) or lake(m.group(2), m.group(3)), source)
        if "{{" not in out and "}}" not in out:
            return out[:-1] if out.endswith("\n") else out
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    return env.from_string(source).render(ref=lambda n: n, lake=lake)


def _check_constraint_columns(con: duckdb.DuckDBPyConnection, m: Model, constraints: list[Constraint]) -> None:
    have = {c[0] for c in con.execute(f"DESCRIBE {m.name}").fetchall()}
    for c in constraints:
        unknown = [col for col in c.columns if col not in have]
        if unknown:
            raise ValueError(f"model {m.name}: constraint {c.describe()} names unknown column(s) {unknown}")


class ConstraintError(ValueError):
    """A built model breaks a constraint its header declares; `model` is the first such model in build
    order (the build child leaves out the unit whose data breaks it, indexing/quarantine.py)."""

    def __init__(self, message: str, model: str) -> None:
        super().__init__(message)
        self.model = model


# The constraints of a small build are checked in one query. On large data DuckDB 1.4.4 can deadlock on that
# query with one thread (index.threads' default): a team build from a 1M-event snapshot hung there for good,
# every thread waiting, at 200 MB and at 1 GB (two threads finished; no single check of the ~150 causes it;
# issue 27). Each check alone took 1.4 s in all. Above this many rows in the largest table, each runs alone.
ONE_QUERY_MAX_ROWS = 20_000


def _largest_table_rows(con: duckdb.DuckDBPyConnection) -> int:
    """The row count of the database's largest table, from DuckDB's catalog (no scan)."""
    return int(con.execute("SELECT coalesce(max(estimated_size), 0) FROM duckdb_tables()").fetchone()[0])


def check_constraints(con: duckdb.DuckDBPyConnection, sql_dir: Path = SQL_DIR,
                      models: dict[str, Model] | None = None,
                      only: Iterable[str] | None = None) -> list[dict[str, object]]:
    """Check every declared constraint against the built database `con`: all in one query on a small build,
    else (or when that one fails) each alone (`only`: the constraints of these models, e.g. those a partial
    build made).

    Returns the failures in build order, each `{"check": "<model>.<kind>", "columns": [...],
    "violations": n, "examples": [...]}` (or `"message"` when the query itself failed, e.g. a
    table missing from an older generation); an empty list when every constraint holds.
    """
    models = models if models is not None else discover(sql_dir)
    wanted = None if only is None else set(only)
    checks: list[tuple[dict[str, object], str]] = []
    for m in order(models):
        if wanted is not None and m.name not in wanted:
            continue
        for c in m.constraints:
            out: dict[str, object] = {"check": c.check, "columns": list(c.columns)}
            if c.values:
                out["accepted"] = list(c.values)
            checks.append((out, c.sql(m.example_key(c.columns[0]) if c.kind == "not_null" else None)))
    rows: dict[int, tuple[int, list[str] | None]] = {}
    if checks and _largest_table_rows(con) < ONE_QUERY_MAX_ROWS:
        try:  # one query for all (~150 on a build): a third of the time of one query each
            rows = dict((i, (n, ex)) for i, n, ex in con.execute(" UNION ALL ".join(
                f"SELECT {i} AS i, * FROM ({sql})" for i, (_, sql) in enumerate(checks))).fetchall())
        except duckdb.Error:  # e.g. a table an older generation lacks: each check alone says which
            rows = {}
    failures: list[dict[str, object]] = []
    for i, (out, sql) in enumerate(checks):
        if i in rows:
            n, examples = rows[i]
        else:
            try:
                n, examples = con.execute(sql).fetchone()
            except duckdb.Error as e:
                failures.append({**out, "message": f"{type(e).__name__}: {str(e).splitlines()[0]}"})
                continue
        if n:
            shown = [x[:200] for x in examples or [] if x is not None]  # a bad value may be any text
            failures.append({**out, "violations": int(n), "examples": shown})
    return failures


def _materialize(con: duckdb.DuckDBPyConnection, m: Model, kind: str, sql: str) -> None:
    """CREATE … AS the model; with compression hints, the table is declared from the model's own
    column types with `USING COMPRESSION` on the hinted columns, then filled by INSERT."""
    hints = m.compression if kind == "TABLE" else {}
    if not hints:
        con.execute(f"CREATE OR REPLACE {kind} {m.name} AS {sql}")
        return
    con.execute(f"CREATE OR REPLACE TABLE {m.name} AS {sql} WITH NO DATA")
    cols = con.execute(f"DESCRIBE {m.name}").fetchall()
    unknown = set(hints) - {c[0] for c in cols}
    if unknown:
        raise ValueError(f"model {m.name}: compression hint for unknown column(s) {sorted(unknown)}")
    ddl = ", ".join(f'"{name}" {ctype}' + (f" USING COMPRESSION {hints[name]}" if name in hints else "")
                    for name, ctype, *_ in cols)
    con.execute(f"CREATE OR REPLACE TABLE {m.name} ({ddl})")
    con.execute(f"INSERT INTO {m.name} {sql}")
