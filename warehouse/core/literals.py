"""Values as SQL literals that can hold no SQL: how the search process passes data to DuckDB.

Why not bound parameters: binding any Python value makes the DuckDB client import pandas when
it is installed (measured +85 MB RSS in the search process, a third of the 300 MB budget at
1M documents), and each bound call costs ~2 ms more than the same literal. Text goes in as a
dollar-quoted constant `$q$…$q$` whose tag is chosen so that it does not occur in the value:
nothing inside can end the literal, and nothing inside is interpreted (no escapes), so a query
or filter value is data by construction, never SQL. Text holding NUL goes in hex-encoded
(`decode(from_hex('…'))`). Numbers are formatted by Python from int/float values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime


def text(value: str) -> str:
    """A VARCHAR literal of any text."""
    if "\x00" in value:  # the request contract rejects NUL; still never put one into SQL text
        return f"decode(from_hex('{value.encode('utf-8').hex()}'))"
    tag, n = "q", 0
    while f"${tag}$" in value or value.endswith(f"${tag}"):
        n += 1
        tag = f"q{n}"
    return f"${tag}${value}${tag}$"


def texts(values: Iterable[str]) -> str:
    """A VARCHAR[] literal."""
    return f"[{', '.join(text(v) for v in values)}]::VARCHAR[]"


def integer(value: int) -> str:
    return str(int(value))


def bigint(value: int) -> str:
    """A BIGINT-typed literal (a prepared statement's EXECUTE argument must match its type exactly)."""
    return f"{int(value)}::BIGINT"


def integers(values: Iterable[int], sql_type: str = "BIGINT") -> str:
    """A typed integer list literal, e.g. `[1, 2]::BIGINT[]`."""
    return f"[{', '.join(str(int(v)) for v in values)}]::{sql_type}[]"


def double(value: float) -> str:
    """An exact DOUBLE literal: the shortest repr, parsed from a string (correctly rounded; a bare
    `0.30000000000000004` would be read as a DECIMAL first)."""
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"not a finite number: {value!r}")
    return f"CAST('{v!r}' AS DOUBLE)"


def doubles(values: Iterable[float]) -> str:
    return f"[{', '.join(double(v) for v in values)}]::DOUBLE[]"


def value(v: object) -> str:
    """A literal for a bool, int, float or str (the build's SQL templates take these)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return integer(v)
    if isinstance(v, float):
        return double(v)
    if isinstance(v, str):
        return text(v)
    raise TypeError(f"no SQL literal for {type(v).__name__}")


def param(v: object) -> str:
    """A literal for a statement parameter (`db.run`): NULL, a scalar as `value`, a list of texts or
    of integers as a typed list (an empty list stays untyped: DuckDB gives it the type it is compared with)."""
    if v is None:
        return "NULL"
    if isinstance(v, (list, tuple, set, frozenset)):
        items = sorted(v) if isinstance(v, (set, frozenset)) else list(v)
        if not items:
            return "[]"
        if all(isinstance(x, str) for x in items):
            return texts(items)
        if all(isinstance(x, int) and not isinstance(x, bool) for x in items):
            return integers(items)
        raise TypeError("a list parameter holds only texts or only integers")
    return value(v)


def number_rows(rows: Iterable[tuple[int | float | None, ...]]) -> str:
    """Rows of numbers as one VARCHAR literal 'a,b,c;d,e,f' for string_split: only digits, signs,
    '.', 'e', ',' and ';' are ever written (ints and finite floats formatted by Python; None is an
    empty field, read back with `nullif(split_part(…), '')`)."""
    def one(v: int | float | None) -> str:
        if v is None:
            return ""
        if isinstance(v, int):
            return str(v)
        if not math.isfinite(v):
            raise ValueError(f"not a finite number: {v!r}")
        return repr(float(v))
    return "'" + ";".join(",".join(one(v) for v in row) for row in rows) + "'"


def timestamp(value: datetime) -> str:
    """A TIMESTAMPTZ literal (a naive datetime is taken as UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return f"{text(value.isoformat())}::TIMESTAMPTZ"
