"""The SQL (top-level `sql/`, installed as `warehouse.sql`): one folder and one placeholder style per role.

- `models/{staging,intermediate,marts}/`: one SELECT per file, a table named after the file;
  Jinja placeholders `{{ ref('model') }}`, `{{ lake('source', 'table') }}` (`indexing.transform`).
- `models/macros/`: CREATE MACRO files run before any model; no placeholders.
- `build/`: lexical-index build steps and the tokenizer macros they store; `$name`, replaced once
  by a typed literal from `literals.value` (`indexing.lexical_index`).
- `queries/<package>/`: query-time statements and templates, one folder per package that runs them,
  looked up by file name (unique across the folders); `{name}` (a lower-case identifier), replaced by a
  trusted SQL fragment through `render(name, **fragments)`, the one way to fill a query template: its
  comment lines dropped, every placeholder filled in one pass, exactly the placeholders the file holds.
  Other braces (`{'a': 1}`, `{2,}`, `{00C0}`) are SQL's own. `$1..$n` are DuckDB's own prepared-statement
  parameters, never substituted here.

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
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


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


@cache
def placeholders(name: str) -> frozenset[str]:
    """The `{name}` placeholders of query `<name>`, its comment lines aside (what `render` must be given)."""
    return frozenset(_PLACEHOLDER.findall(query_template(name)))


def render(name: str, template: str | None = None, /, **fragments: str) -> str:
    """Query `<name>` without its comment lines, each `{placeholder}` replaced by its fragment.

    One pass: a fragment is inserted as is and never scanned again (a fragment that holds `{x}` keeps
    it), so the order of the fragments does not matter; a template nested in another is rendered by its
    own call first. The fragments must be exactly the template's placeholders (`""` for an empty one):
    a missing or an unknown one raises ValueError naming the file. `template`, when given, is a variant
    of the file's text (its comment lines already dropped) rendered instead of it, under the same name.
    """
    text = query_template(name) if template is None else template
    wanted = placeholders(name) if template is None else frozenset(_PLACEHOLDER.findall(text))
    if wanted != fragments.keys():
        missing = ", ".join(f"{{{n}}}" for n in sorted(wanted - fragments.keys())) or "none"
        unknown = ", ".join(f"{{{n}}}" for n in sorted(fragments.keys() - wanted)) or "none"
        raise ValueError(f"{query_files()[name].relative_to(ROOT).as_posix()}: placeholders without a fragment: "
                         f"{missing}; fragments without a placeholder: {unknown}")
    for key, fragment in fragments.items():
        if not isinstance(fragment, str):
            raise TypeError(f"{name}: fragment {{{key}}} is {type(fragment).__name__}, not SQL text (str)")
    return _PLACEHOLDER.sub(lambda m: fragments[m.group(1)], text)


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
