"""The SQL (top-level `sql/`, installed as `warehouse.sql`): one folder and one placeholder style per role.

- `models/{staging,intermediate,marts}/`: one SELECT per file, a table named after the file;
  Jinja placeholders `{{ ref('model') }}`, `{{ lake('source', 'table') }}` (`indexing.transform`).
- `models/macros/`: CREATE MACRO files run before any model; no placeholders.
- `build/`: lexical-index build steps and the tokenizer macros they store; `$name`, replaced once
  by a typed literal from `literals.value` (`indexing.lexical_index`).
- `queries/<package>/`: query-time statements and templates, one folder per package that runs them,
  looked up by file name (unique across the folders); `{name}`, replaced by a trusted SQL fragment
  (`search.*`). `$1..$n` are DuckDB's own prepared-statement parameters, never substituted here.

What is indexed depends on `models/` and `build/` only: `index_hash()` hashes those two, so editing a
query template never changes `index_rev` nor voids the reuse of stored term counts.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import re
from functools import cache
from pathlib import Path

# `sql/` at the repository's top level, installed as the package `warehouse.sql` (pyproject package-dir)
ROOT = Path(str(importlib.resources.files("warehouse.sql")))
MODELS = ROOT / "models"
BUILD = ROOT / "build"
QUERIES = ROOT / "queries"
INDEX_ROLES = (MODELS, BUILD)
_BUILD_PARAM = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


@cache
def build_sql(name: str) -> str:
    """The text of `build/<name>.sql`."""
    return (BUILD / f"{name}.sql").read_text(encoding="utf-8")


def render_build(name: str, values: dict[str, str]) -> str:
    """`build/<name>.sql` with each `$name` in `values` replaced by its (already rendered) literal.

    One pass: a substituted literal is never scanned again for `$names`.
    """
    return _BUILD_PARAM.sub(lambda m: values.get(m.group(1), m.group(0)), build_sql(name))


@cache
def query_files() -> dict[str, Path]:
    """Every `queries/<package>/<name>.sql` by its name: the folders group the statements by the package
    that runs them (search, dispatch, lifecycle, quality, reports, pipeline, home); names are unique."""
    found: dict[str, Path] = {}
    for p in sorted(QUERIES.rglob("*.sql")):
        if p.stem in found:
            raise ValueError(f"two query files are named {p.stem}: {found[p.stem]} and {p}")
        found[p.stem] = p
    return found


@cache
def query_sql(name: str) -> str:
    """The text of query `<name>` as written (prepared statements keep their `$n` parameters)."""
    return query_files()[name].read_text(encoding="utf-8")


@cache
def query_template(name: str) -> str:
    """`queries/<name>.sql` without its comment lines (comments may mention `{placeholders}`)."""
    return "\n".join(ln for ln in query_sql(name).splitlines() if not ln.lstrip().startswith("--"))


def files_digest(folder: Path) -> bytes:
    """sha256 over every `.sql` under `folder`: its path relative to the SQL root, then its bytes."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*.sql")):
        h.update(p.relative_to(ROOT).as_posix().encode())
        h.update(p.read_bytes())
    return h.digest()


@cache
def index_hash() -> str:
    """Hash of the SQL that decides what is indexed (models and build steps): part of `index_rev`."""
    h = hashlib.sha256()
    for folder in INDEX_ROLES:
        h.update(files_digest(folder))
    return h.hexdigest()
