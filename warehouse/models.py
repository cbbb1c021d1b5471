"""A small dbt-style runner: every `sql/**/<name>.sql` file is one model that makes table `<name>`.

Model files are Jinja templates of one SELECT. `{{ ref('x') }}` names another model (and makes
it a dependency); `{{ lake('dsh', 'events') }}` reads a lake table's Parquet files. Files in
`sql/macros/` (CREATE MACRO statements) run first. A leading `-- materialized: view` comment
makes a view instead of a table. A model's first comment block is its documentation;
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

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
_COL_DOC = re.compile(r"^--\s*col:\s*([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.+)$", re.M)


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
            if not (text.startswith("col:") or text.startswith("materialized:")):
                lines.append(text)
        return " ".join(x for x in lines if x)

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


def code_hash(sql_dir: Path = SQL_DIR) -> str:
    """Hash of the SQL that builds the index (models, macros, lexical index): part of `index_rev`.

    Query-time SQL (`sql/search/`) is not included: it does not change what is indexed.
    """
    h = hashlib.sha256()
    files = [p for d in (*LAYERS, "macros", "index") for p in (sql_dir / d).rglob("*.sql")]
    for p in sorted(files):
        h.update(p.relative_to(sql_dir).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


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
            con.execute(f"CREATE OR REPLACE {kind} {m.name} AS {sql}")
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
