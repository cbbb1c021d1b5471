"""The SQL shipped inside the package (`warehouse/sql/`), one folder and one placeholder style per role.

- `models/{staging,intermediate,marts}/`: one SELECT per file, a table named after the file;
  Jinja placeholders `{{ ref('model') }}`, `{{ lake('source', 'table') }}` (`build.transform`).
- `models/macros/`: CREATE MACRO files run before any model; no placeholders.
- `build/`: lexical-index build steps and the tokenizer macros they store; `$name`, replaced once
  by a typed literal from `literals.value` (`build.lexical_index`).
- `queries/`: query-time statements and templates; `{name}`, replaced by a trusted SQL fragment
  (`search.*`). `$1..$n` are DuckDB's own prepared-statement parameters, never substituted here.

What is indexed depends on `models/` and `build/` only: `index_hash()` hashes those two, so editing a
query template never changes `index_rev` nor voids the reuse of stored term counts.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "sql"
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
def query_sql(name: str) -> str:
    """The text of `queries/<name>.sql` as written (prepared statements keep their `$n` parameters)."""
    return (QUERIES / f"{name}.sql").read_text(encoding="utf-8")


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
