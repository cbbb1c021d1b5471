"""The models' text renderers are total (issue 27): any string in, never an error out.

At 1M events one tool error that was not JSON ("ERROR 1290 (HY000): …") killed the cold build inside
`akw_json_text`: DuckDB does not promise to short-circuit `json_valid(j) AND json_type(j) = …`, and
here it did not once the result was used (count(DISTINCT …)) over a vector mixing JSON and plain text.
"""

from __future__ import annotations

import duckdb
import pytest

from warehouse.indexing.transform import SQL_DIR

HOSTILE = ["ERROR 1290 (HY000): The MySQL server is running with the --read-only option", '{"command": "ls', "[1, 2",
           "\x00", "{" * 2000, "", "null", "42", "\ufffd\ufffd"]
DEEP = '{"a": ' * 300 + "1" + "}" * 300  # a valid object, deeply nested: rendered as its one value


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = duckdb.connect()
    for macro in sorted((SQL_DIR / "macros").glob("*.sql")):
        c.execute(macro.read_text(encoding="utf-8"))
    return c


def test_renderers_never_raise_on_a_vector_of_mixed_values(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("CREATE OR REPLACE TABLE t (j VARCHAR)")
    good = ['{"command":"ls"}', '[{"path":"a.py","change":"edit"}]']
    con.execute("INSERT INTO t SELECT unnest(?) FROM range(3000)", [[*good, *HOSTILE, DEEP, None]])
    rows = dict(con.execute("SELECT j, akw_json_text(j) || '|' || akw_files_text(j) FROM t GROUP BY ALL").fetchall())
    assert rows['{"command":"ls"}'] == 'ls|{"command":"ls"}'
    assert rows['[{"path":"a.py","change":"edit"}]'] == '[{"path":"a.py","change":"edit"}]|a.py (edit)'
    for v in HOSTILE:  # what is not a JSON object (or a files list) is returned as it is
        assert rows[v] == f"{v}|{v}", v[:40]
    assert rows[DEEP].endswith(f"|{DEEP}") and rows[DEEP].startswith('{"a":')



def test_the_1m_failure_class_reproduced_small(con: duckdb.DuckDBPyConnection) -> None:
    """The shape that failed: JSON objects and a plain-text tool error interleaved in one vector, the
    rendered value consumed by an aggregate (with the old `AND`-guarded macro this raised)."""
    con.execute("""CREATE OR REPLACE TABLE u AS SELECT CASE i % 3 WHEN 0 THEN '{"command":"ls"}'
                   WHEN 1 THEN 'ERROR 1290 (HY000): The MySQL server is running' ELSE '[1,2]' END AS j
                   FROM range(200000) r(i)""")
    assert con.execute("SELECT count(DISTINCT akw_json_text(j)), count(DISTINCT akw_files_text(j)) FROM u"
                       ).fetchone() == (3, 2)  # files_text: '[1,2]' holds no path, the other two stay as they are


@pytest.mark.parametrize(("text", "bare"), [
    ("Loading the clean-bom-crlf skill.", True),
    ("Загружаю навык deploy-iya-ru.", True),
    ("Let me invoke the code-reviewer agent.", True),
    ("Launching skill: clean-bom-crlf", True),  # Claude Code's Skill tool result
    ("Loading the dump on the new server.", False),  # a step of the work
    ("I'll use the pdf skill to fill in the form.", False),  # says what for
    ("Использую навык deploy-iya-ru, потому что сервер новый.", False),
    ("Not finished: tools/clean_text.py crashes on binaries", False),
    ("", False), (None, False), ("\ufffd" * 500, False),
])
def test_a_bare_announcement_is_told_from_a_step_of_the_work(con: duckdb.DuckDBPyConnection, text: str | None,
                                                             bare: bool) -> None:
    """Issue 28: "Loading the X skill." is not a search document, so it is never a snippet."""
    assert con.execute("SELECT akw_is_announcement(?)", [text]).fetchone() == (bare,)
