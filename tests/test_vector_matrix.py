"""The vector side's in-memory scan (search/vector_matrix.py): int8 copies of the unit vectors answer as the
SQL scan does — the same documents, filters and passage offsets, similarities within the quantization's
error — and which scan answers depends only on the generation, so every process answers alike."""

from __future__ import annotations

import duckdb
import pytest
from homes import BuiltHome

from warehouse.core import embed
from warehouse.search import vector, vector_matrix
from warehouse.search.contract import SearchRequest
from warehouse.search.vector_matrix import VectorMatrix
from warehouse.search.watchdog import Watchdog
from warehouse.search.workspaces import WorkspaceIndex

QUERIES = ("restore mysql root access", "кто настраивал резервное копирование postgres", "nginx reverse proxy",
           "деплой на kubernetes", "rotate the api keys", "disk full on the build server")
LANES = ["episodes", "skills", "code"]
QUANTIZATION_ERROR = 0.002  # measured at most 0.0008 on the 100k bench's vectors


@pytest.fixture(scope="module")
def con(home24_on: BuiltHome) -> duckdb.DuckDBPyConnection:
    [gen] = sorted((home24_on.home / "generations").glob("gen-*.duckdb"))
    c = duckdb.connect(str(gen), read_only=True)
    yield c
    c.close()


def _req(query: str, **filters: object) -> SearchRequest:
    return SearchRequest.model_validate({"schema": "knowledge.search/v1", "query": query, "filters": filters})


def _same(sql: list[tuple[int, float]], mem: list[tuple[int, float]]) -> None:
    """The same documents (near-ties may swap places), each within the quantization error."""
    assert {d for d, _ in sql} == {d for d, _ in mem} or len(sql) == vector.K_LANE
    got = dict(mem)
    for doc, sim in sql:
        if doc in got:
            assert abs(got[doc] - sim) <= QUANTIZATION_ERROR, (doc, sim, got[doc])
    shared = [d for d, _ in sql[:10]]
    assert len(set(shared) & {d for d, _ in mem[:12]}) >= len(shared) - 1


@pytest.mark.parametrize("query", QUERIES)
def test_the_in_memory_scan_answers_as_the_sql_scan(con: duckdb.DuckDBPyConnection, query: str) -> None:
    lanes = VectorMatrix()
    loaded = lanes.lanes(con)
    assert loaded is lanes.lanes(con)  # read once
    assert loaded is not None and sum(len(v.q8) for v in loaded.values()) == \
        con.execute("SELECT count(*) FROM akw_vec").fetchone()[0]
    ws = WorkspaceIndex().resolve([])
    sql, sql_pos = vector._scan(con, _req(query), LANES, Watchdog(), ws)
    mem, mem_pos = vector._scan_in_memory(con, _req(query), LANES, ws, "", loaded)
    for lane in LANES:
        _same(sql[lane], mem[lane])
    agreeing = {k for k in sql_pos if k in mem_pos}
    assert all(sql_pos[k] == mem_pos[k] for k in agreeing)  # the same passage is the best unit


def test_a_filter_selects_the_documents_first(con: duckdb.DuckDBPyConnection) -> None:
    loaded = VectorMatrix().lanes(con)
    ws_index = WorkspaceIndex.read(con)
    [(workspace,)] = con.execute("SELECT min(workspace_id) FROM ak_document_workspace").fetchall()
    ws = ws_index.resolve([workspace])
    req = _req("backup of the database", workspaces=[workspace])
    sql, _ = vector._scan(con, req, ["episodes"], Watchdog(), ws)
    mem, _ = vector._scan_in_memory(con, req, ["episodes"], ws, "", loaded)
    _same(sql["episodes"], mem["episodes"])
    where = vector.lane_predicate("episodes", req.filters, ws)
    allowed = {d for (d,) in con.execute(f"SELECT d.doc_id FROM ak_document AS d WHERE {where}").fetchall()}
    assert mem["episodes"] and {d for d, _ in mem["episodes"]} <= allowed
    unfiltered, _ = vector._scan_in_memory(con, _req("backup of the database"), ["episodes"], ws_index.resolve([]),
                                           "", loaded)
    assert not {d for d, _ in unfiltered["episodes"]} <= allowed  # the filter took documents out


def test_a_generation_beyond_the_memory_cap_keeps_the_sql_scan(con: duckdb.DuckDBPyConnection,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vector_matrix, "MAX_BYTES", 1000)
    matrix = VectorMatrix()
    assert matrix.lanes(con) is None and matrix.lanes(con) is None and matrix.lanes(con) is None


def test_quantized_similarity_stays_within_the_error(con: duckdb.DuckDBPyConnection) -> None:
    import numpy as np

    episodes = VectorMatrix().lanes(con)[0]
    exact = np.stack(con.execute("SELECT vec FROM akw_vec WHERE lane_no = 0 ORDER BY doc_id, rowid")
                     .fetchnumpy()["vec"]).astype(np.float64)
    q = np.asarray(embed.embed("why did the deploy fail"), dtype=np.float32)
    err = np.abs(episodes.similarities(q) - exact @ q.astype(np.float64))
    assert float(err.max()) <= QUANTIZATION_ERROR
