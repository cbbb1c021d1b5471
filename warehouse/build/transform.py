"""A small dbt-style runner: every `sql/models/<layer>/<name>.sql` file is one model that makes table `<name>`.

Model files are Jinja templates of one SELECT. `{{ ref('x') }}` names another model (and makes
it a dependency); `{{ lake('dsh', 'events') }}` reads a lake table's Parquet files. Files in
`sql/models/macros/` (CREATE MACRO statements) run first. A leading `-- materialized: view` comment
makes a view instead of a table; `-- compression: col=method, …` lines pin the storage compression
of those columns (a table made as CREATE TABLE with the model's own column types, then INSERT).
A model's first comment block is its documentation;
`-- col: name: text` lines become DuckDB column comments for analysts. Models run in
dependency order (ties by name), so a build is deterministic.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import jinja2

from warehouse.sqlfiles import MODELS as SQL_DIR
_COL_DOC = re.compile(r"^--\s*col:\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+)$", re.M)
_COMPRESSION = re.compile(r"^--\s*compression:\s*(.+)$", re.M)
_COMPRESSION_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(uncompressed|dictionary|rle|bitpacking|fsst|chimp|patas)$")


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
            if not text.startswith(("col:", "materialized:", "compression:")):
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


def run(con: duckdb.DuckDBPyConnection, lake_root: Path, sql_dir: Path = SQL_DIR,
        on_model: object = None) -> list[str]:
    """Build every model into `con`. Returns model names in build order."""
    models = discover(sql_dir)
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)
    for macro in sorted((sql_dir / "macros").glob("*.sql")):  # CREATE MACRO files, before any model
        con.execute(macro.read_text(encoding="utf-8"))

    def lake(source: str, table: str) -> str:
        glob = (lake_root / "bronze" / source / table).as_posix() + "/*.parquet"
        return f"read_parquet('{glob}', union_by_name = true)"

    built = []
    for m in order(models):
        sql = env.from_string(m.source).render(ref=lambda n: n, lake=lake)
        kind = "VIEW" if m.materialized == "view" else "TABLE"
        try:
            _materialize(con, m, kind, sql)
        except duckdb.Error as e:
            e.add_note(f"akw build step: model {m.name}")
            raise
        doc = m.doc.replace("'", "''")
        if doc:
            con.execute(f"COMMENT ON {kind} {m.name} IS '{doc}'")
        for col, text in m.column_docs.items():
            con.execute(f"COMMENT ON COLUMN {m.name}.{col} IS '{text.replace(chr(39), chr(39) * 2)}'")
        built.append(m.name)
        if callable(on_model):
            on_model(m.name)
    return built


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
