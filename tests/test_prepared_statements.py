"""The search session's prepared statements name each parameter once.

DuckDB re-binds and re-plans a prepared statement on every EXECUTE when a parameter appears more
than once (measured on fuse_semantic.sql: 3.4 ms of binding and 1.5 ms of optimizers per search,
~10 ms of P50 at 100k documents with the semantic side on); fuse.sql was written that way from the
start. A value needed twice is carried as a column of an earlier CTE instead."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

QUERIES = Path(__file__).resolve().parent.parent / "warehouse" / "sql" / "queries"


def _code(f: Path) -> str:
    return "\n".join(re.sub(r"--.*", "", ln) for ln in f.read_text(encoding="utf-8").splitlines())


def _prepared() -> list[tuple[str, str, str]]:
    """(file, statement, body) of every PREPARE in the query files, and actors.sql (prepared from
    search/session.py as akw_actors)."""
    out = [("actors.sql", "akw_actors", _code(QUERIES / "actors.sql"))]
    for f in sorted(QUERIES.glob("*.sql")):
        code = _code(f)
        for m in re.finditer(r"PREPARE\s+(\w+)\s+AS\s+(.*?)(?=;|\Z|PREPARE\s)", code, flags=re.S | re.I):
            out.append((f.name, m.group(1), m.group(2)))
    return out


def test_the_session_prepares_the_fusion_statements() -> None:
    names = {name for _, name, _ in _prepared()}
    assert {"akw_fuse", "akw_fuse_sem", "akw_slots", "akw_actors"} <= names, names


@pytest.mark.parametrize("file,name,body", _prepared(), ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_each_parameter_is_named_once(file: str, name: str, body: str) -> None:
    twice = {p: n for p, n in Counter(re.findall(r"\$\d+", body)).items() if n > 1}
    assert twice == {}, f"{file} {name}: {twice}"
