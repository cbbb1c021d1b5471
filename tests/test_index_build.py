"""The build child's lexical builder: equal to the original builder, with or without reuse of a
previous generation's tokenized texts, and free of bound parameters (no pandas in the child)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from warehouse.bench.lexical import Corpus
from warehouse.core import literals
from warehouse.core.db import connect
from warehouse.indexing import lexical_index
from warehouse.indexing.lexical_index import build_lexical_index
from warehouse.search.lexical import lexical_search

TABLES = (("fts_vocab", "term"), ("fts_postings", "lane, term_id, doc_id"), ("fts_lane_stats", "lane"),
          ("fts_lane_terms", "lane, term_id"))


def _corpus(seed: int, n: int) -> list[tuple[str, str, str, str, str | None]]:
    corpus = Corpus(seed=seed)
    docs = []
    for i in range(n):
        lane, title, text, ident = corpus.doc()
        docs.append((f"x{i:05d}", lane, title, text, ident))
    return docs


def _load(con: duckdb.DuckDBPyConnection, docs: list[tuple]) -> None:
    """ak_document with doc_id in (lane, doc_key) order; values as literals (no bound parameters)."""
    con.execute("CREATE OR REPLACE TABLE ak_document (doc_id INTEGER, doc_key VARCHAR, lane VARCHAR, "
                "title VARCHAR, text VARCHAR, ident_text VARCHAR)")
    rows = sorted(docs, key=lambda d: (d[1], d[0]))
    for start in range(0, len(rows), 500):
        values = ", ".join(
            "(" + ", ".join([str(start + i), *("NULL" if v is None else literals.value(v) for v in r)]) + ")"
            for i, r in enumerate(rows[start:start + 500]))
        con.execute(f"INSERT INTO ak_document VALUES {values}")


def _tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple]]:
    # the physical order of the postings is the sorted order (what the zone maps rely on)
    phys = con.execute("SELECT lane, term_id, doc_id FROM fts_postings").fetchall()
    assert phys == sorted(phys)
    return {t: con.execute(f"SELECT * FROM {t} ORDER BY {o}").fetchall() for t, o in TABLES}


def _built(path: Path, docs: list[tuple], prev: Path | None = None) -> tuple[dict, dict[str, list[tuple]]]:
    con = connect(path)
    try:
        _load(con, docs)
        stats = lexical_index.build_lexical_index(con, prev, chunk_docs=700)
        return stats, _tables(con)
    finally:
        con.close()


@pytest.fixture(scope="module")
def docs() -> list[tuple]:
    return _corpus(seed=11, n=2000)


def _mutated(docs: list[tuple]) -> list[tuple]:
    """Some texts changed, some documents gone, some new, one moved to another lane."""
    out = [(k, lane, title, text + " новый текст deploy-9.9.9" if i % 50 == 3 else text, ident)
           for i, (k, lane, title, text, ident) in enumerate(docs) if i % 97 != 5]
    out += [(f"y{i:05d}", *rest) for i, (_, *rest) in enumerate(_corpus(seed=12, n=40))]
    k, lane, title, text, ident = out[0]
    out[0] = (k, "skills" if lane != "skills" else "episodes", title, text, ident)
    return out


def test_full_build_does_not_depend_on_its_slicing(docs, tmp_path) -> None:
    stats, tables = _built(tmp_path / "new.duckdb", docs)
    assert not stats["texts"]["reused_from_previous"]
    assert stats["texts"]["tokenized"] == stats["texts"]["distinct"] <= len(docs)
    ref = connect()
    _load(ref, docs)
    build_lexical_index(ref, chunk_docs=10**6)  # the lexical module's entry point: one slice
    assert tables == _tables(ref)
    assert all(tables.values())


def test_reuse_of_a_previous_generation_equals_a_full_build(docs, tmp_path) -> None:
    prev = tmp_path / "prev.duckdb"
    _built(prev, docs)
    changed = _mutated(docs)
    stats, reused = _built(tmp_path / "inc.duckdb", changed, prev)
    assert stats["texts"]["reused_from_previous"]
    assert 0 < stats["texts"]["tokenized"] < stats["texts"]["distinct"] / 5
    full_stats, full = _built(tmp_path / "full.duckdb", changed)
    assert full_stats["texts"]["tokenized"] == full_stats["texts"]["distinct"]
    assert reused == full
    # the stored texts of a reused build serve the next build the same way
    again_stats, again = _built(tmp_path / "again.duckdb", docs, tmp_path / "inc.duckdb")
    assert again_stats["texts"]["reused_from_previous"] and again == _built(tmp_path / "f2.duckdb", docs)[1]
    con = connect(tmp_path / "inc.duckdb", read_only=True)
    try:
        assert lexical_search(con, "episodes", "новый текст deploy-9.9.9")
    finally:
        con.close()


def test_a_previous_generation_of_another_build_key_is_not_reused(docs, tmp_path) -> None:
    prev = tmp_path / "prev.duckdb"
    _built(prev, docs[:300])
    con = connect(prev)
    con.execute("UPDATE fts_build SET key = 'tokenizer-of-another-version'")
    con.close()
    stats, _ = _built(tmp_path / "b.duckdb", docs[:300], prev)
    assert not stats["texts"]["reused_from_previous"]
    assert stats["texts"]["tokenized"] == stats["texts"]["distinct"]
    for missing in (tmp_path / "absent.duckdb", None):
        assert not _built(tmp_path / f"c{missing is None}.duckdb", docs[:50], missing)[0]["texts"][
            "reused_from_previous"]


def test_literals_are_exact_and_escaped() -> None:
    con = connect()
    for v in ("it's '; DROP TABLE x; --", "ёлка \\n $lo", 0.1 + 0.2, 1.2, 0.75, 20.308122658470687, -3, 2**40):
        got = con.execute(f"SELECT {literals.value(v)}").fetchone()[0]
        assert got == v and type(got) is type(v)
    with pytest.raises(TypeError):
        literals.value(None)


def test_the_builder_binds_no_parameters(tmp_path) -> None:
    """A bound parameter makes DuckDB import pandas (~85 MB of the build child's RSS)."""
    docs = [(f"d{i}", "episodes" if i % 3 else "code", f"t{i}", text, None)
            for i, (_, _, _, text, _) in enumerate(_corpus(3, 200))]
    code = (
        "import sys; from pathlib import Path; from warehouse.core.db import connect\n"
        "from warehouse.indexing import lexical_index\n"
        "from warehouse.core import literals\n"
        f"docs = {docs!r}\n"
        "rows = sorted(docs, key=lambda d: (d[1], d[0]))\n"
        "values = ', '.join('(' + ', '.join([str(i), *map(literals.value, r[:4]), 'NULL']) + ')' "
        "for i, r in enumerate(rows))\n"
        f"a, b = Path({str(tmp_path / 'a.duckdb')!r}), Path({str(tmp_path / 'b.duckdb')!r})\n"
        "for path, prev in ((a, None), (b, a)):\n"
        "    c = connect(path)\n"
        "    c.execute('CREATE TABLE ak_document (doc_id INTEGER, doc_key VARCHAR, lane VARCHAR, title VARCHAR, '\n"
        "              'text VARCHAR, ident_text VARCHAR)')\n"
        "    c.execute(f'INSERT INTO ak_document VALUES {values}')\n"
        "    s = lexical_index.build_lexical_index(c, prev)\n"
        "    c.close()\n"
        "assert s['texts']['reused_from_previous'] and s['postings'] > 0, s\n"
        "assert 'pandas' not in sys.modules and 'numpy' not in sys.modules, 'a parameter was bound'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
