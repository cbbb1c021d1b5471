"""One unit's lake data that a model cannot build is left out of the generation, not the whole build
(issue 27; spec: one broken session never stops the others).

The text renderers are total (sql/models/macros/text.sql), so a model should never fail on a value; when
one still does — a torn or foreign Parquet file in the lake, a value no renderer foresaw, a role, status or
outcome outside a model's accepted values (a declared constraint the built data breaks) — the build child
finds the unit whose files make it fail and builds again without them. A unit is a source's file stem
(`lake/bronze/<source>/<table>/<stem>.parquet`: the same stem in every table of that source is one unit).

Finding it: the candidates are the units of the sources the failing model reads (directly or through the
models it reads); build that model and those it reads, nothing else, from half of the candidates; when it
fails that half holds a bad unit, else the other half does; halve again, then build from the last one
alone. Each probe reads only its half, so the search costs about one build of the failing model's part.
A failure that needs units together (two units that clash: the last one alone builds) is not one unit's,
nor is one that happens with no unit at all (a model broken for any data): the build fails as before.
At most `MAX_UNITS` units are left out of one build: more than that is not bad data in a few units.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

import duckdb

from warehouse.indexing.transform import LAKE_SCHEMA_FILE, ConstraintError

MAX_UNITS = 8
_NOTE = "akw build step: model "


class Unit(NamedTuple):
    source: str
    stem: str


def unit_of(path: Path) -> Unit:
    """The unit of a lake file `bronze/<source>/<table>/<stem>.parquet`."""
    return Unit(path.parent.parent.name, path.stem)


def failed_model(e: BaseException) -> str | None:
    """The model a build error happened in (transform.run notes it) or whose declared constraint the built
    data breaks; None for any other step."""
    if isinstance(e, ConstraintError):
        return e.model
    for note in getattr(e, "__notes__", []) or []:
        if note.startswith(_NOTE):
            return note[len(_NOTE):]
    return None


def may_be_data(e: BaseException) -> bool:
    """An error a unit's data can cause: a DuckDB error inside a model or a broken constraint (a hostile
    role or outcome in the lake), not memory, not a cancel."""
    return (isinstance(e, duckdb.Error | ConstraintError) and failed_model(e) is not None
            and not isinstance(e, duckdb.OutOfMemoryException | duckdb.InterruptException))


def lake_units(lake_root: Path, left_out: Iterable[Unit] = (), sources: Iterable[str] | None = None) -> list[Unit]:
    """Every unit with a file in the lake (of `sources` only, when given), sorted (a deterministic search),
    without those `left_out`."""
    skip = set(left_out)
    wanted = None if sources is None else set(sources)
    found = {u for u in (unit_of(p) for p in (lake_root / "bronze").glob("*/*/*.parquet") if p.name != LAKE_SCHEMA_FILE)
             if wanted is None or u.source in wanted}
    return sorted(found - skip)


def keep_all_but(left_out: Iterable[Unit]) -> Callable[[Path], bool]:
    skip = frozenset(left_out)
    return lambda p: unit_of(p) not in skip


def keep_only(units: Iterable[Unit]) -> Callable[[Path], bool]:
    wanted = frozenset(units)
    return lambda p: unit_of(p) in wanted


def find_bad_unit(candidates: list[Unit], fails: Callable[[Callable[[Path], bool]], bool]) -> Unit | None:
    """The unit among `candidates` whose files alone make the build fail (`fails(keep)`: the models up to
    the failing one, built from the lake files `keep` lets through, raise); None when no one unit does."""
    if fails(keep_only(())):  # it fails with no unit at all: a broken model or setting, not a unit's data
        return None
    pool = list(candidates)
    while len(pool) > 1:  # one probe per halving: when the first half builds, the second is the suspect
        half = len(pool) // 2
        pool = pool[:half] if fails(keep_only(pool[:half])) else pool[half:]
    # the last one alone must fail: it does not when the failure needs units together (or was no unit's)
    return pool[0] if pool and fails(keep_only(pool)) else None
