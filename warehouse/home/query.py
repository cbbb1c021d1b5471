"""`akw sql`: one read-only statement on the published generation, under a deadline and a spill cap.

Exactly one statement per call, and only a query (SELECT, SHOW, DESCRIBE, EXPLAIN …): a `SET` could
undo the reader policy every search of the process shares, several statements would hide which one
failed. The connection is the reader policy's (generation.open_current), so `sql` after `search` in
one process opens the same database instance instead of failing on a second configuration.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import duckdb

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.settings import Query
from warehouse.home import generation

READ_ONLY = (duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN)


def one_statement(con: duckdb.DuckDBPyConnection, query: str) -> str:
    """The single read-only statement of `query`; zero, several or a writing one is KNOWLEDGE_QUERY_INVALID."""
    if not query or not query.strip(" \t\r\n;"):
        raise KnowledgeError(Code.QUERY_INVALID, "empty statement: give one SQL query", statements=0)
    try:
        statements = con.extract_statements(query)
    except duckdb.Error as e:
        raise KnowledgeError(Code.QUERY_INVALID, f"{type(e).__name__}: {e}") from None
    if len(statements) != 1:
        raise KnowledgeError(Code.QUERY_INVALID, f"exactly one statement per call ({len(statements)} given)",
                             statements=len(statements))
    if statements[0].type not in READ_ONLY:
        raise KnowledgeError(Code.QUERY_INVALID, f"only a read-only query is allowed, not {statements[0].type.name}",
                             statement=statements[0].type.name)
    return statements[0].query


def run(generations: Path, query: str, limit: int, policy: Query) -> dict[str, Any]:
    con, gen = generation.open_current(generations, spill_limit=policy.spill_limit)
    timer = threading.Timer(policy.timeout_s, con.interrupt)
    try:
        statement = one_statement(con, query)
        timer.start()
        cur = con.execute(statement)
        cols = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchmany(limit + 1)
    except KnowledgeError:
        raise
    except duckdb.InterruptException:
        raise KnowledgeError(Code.LIMIT, f"the query ran longer than query.timeout_s ({policy.timeout_s:g} s)",
                             limit="query.timeout_s") from None
    except duckdb.OutOfMemoryException as e:
        raise _out_of_memory(e, policy) from None
    except Exception as e:
        raise KnowledgeError(Code.QUERY_INVALID, f"{type(e).__name__}: {e}") from e
    finally:
        timer.cancel()
        con.close()
    return {"index_rev": gen.index_rev, "columns": cols, "rows": [list(r) for r in rows[:limit]],
            "truncated": len(rows) > limit}


def _out_of_memory(e: duckdb.OutOfMemoryException, policy: Query) -> KnowledgeError:
    """KNOWLEDGE_LIMIT naming the limit that was hit (issue 25): the spill cap (`query.spill_limit`, DuckDB's
    max_temp_directory_size) or the reader's fixed memory budget, which no setting raises."""
    first = str(e).splitlines()[0]
    if "max_temp_directory_size" in str(e) or "offload" in first:
        return KnowledgeError(Code.LIMIT, f"the query needs more spill space than query.spill_limit "
                              f"({policy.spill_limit}) allows: {first}", limit="query.spill_limit")
    return KnowledgeError(Code.LIMIT, f"the query needs more memory than a reader may hold "
                          f"({generation.READER_MEMORY}, fixed for every process that reads the index): {first}; "
                          "aggregate or filter more, or read the generation with DuckDB directly",
                          limit="reader.memory_limit")
