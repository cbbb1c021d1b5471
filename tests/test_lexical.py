"""Lexical index: RU/EN morphology, exact identifiers with boost, BM25 impacts, determinism, filters."""

from __future__ import annotations

import math
from collections import Counter

import duckdb
import pyarrow as pa
import pytest

from warehouse.bench.lexical import Corpus
from warehouse.core import literals
from warehouse.core.db import connect
from warehouse.core.tokenizer import BM25_B, BM25_K1
from warehouse.indexing.lexical_index import build_lexical_index
from warehouse.search.lexical import (
    IDENT_BOOST,
    IMPACT_SCALE,
    lexical_search,
    query_terms,
    search_with_strategy,
)

# (doc_key, lane, title, text, ident_text); doc_id is assigned in (lane, doc_key) order below.
DOCS = [
    ("e01", "episodes", "Миграция сайта", "Мы мигрировали сайт на новый хостинг и проверили миграцию.", None),
    ("e02", "episodes", "Deploying the API", "We are deploying the api service with docker compose.", None),
    ("e03", "episodes", "Смешанный", "Починили deploy скрипт, теперь deployment проходит без ошибок.", None),
    ("e04", "episodes", "Настройка nginx", "Настроили nginx на сервере 176.99.5.35, порт 8080 открыт.", None),
    ("e05", "episodes", "Настройка nginx", "Настроили nginx на сервере 176.99.5.36, порт 8080 открыт.", None),
    ("e06", "episodes", "Сертификат", "Обновили сертификат для api.shop-example.com вручную.", None),
    ("e07", "episodes", "Конфиг", "Правили /etc/nginx/sites-enabled/iya.ru.conf и перезапустили сервис.", None),
    ("e08", "episodes", "Handler", "Added max_retry_count to the getUserName handler.", None),
    ("e09", "episodes", "Кавычки", "Команда «деплой»\u00a0прошла—успешно…“готово”", None),
    ("e10", "episodes", "Праздник", "Нарядили ёлку во дворе.", None),
    ("e11", "episodes", "Миграция базы", "Миграция базы данных postgres.", None),
    ("m01", "memories", "Миграция сайта", "Помни: миграция сайта идёт через staging.", None),
    ("m02", "memories", "Одинаковые", "одинаковый текст для проверки порядка", None),
    ("m03", "memories", "Одинаковые", "одинаковый текст для проверки порядка", None),
    ("s01", "skills", "deploy-iya-ru", "Скилл деплоя сайта на хостинг.", "deploy-iya-ru"),
    ("s02", "skills", "deploy-generic", "Generic deploy skill for any site.", "deploy-generic"),
]
ORDERED = sorted(DOCS, key=lambda d: (d[1], d[0]))
DOC_ID = {d[0]: i for i, d in enumerate(ORDERED)}
KEY = {i: k for k, i in DOC_ID.items()}
NASTY = ['"миграция', "(сайт OR deploy)", "deploy*", "'; DROP TABLE fts_postings; --", "NEAR(a b)", "{k} {where_sql}",
         "a AND NOT b", "\\x00 %s ?", "   ", ""]


def _load(con: duckdb.DuckDBPyConnection, docs: list[tuple]) -> None:
    con.execute("CREATE OR REPLACE TABLE ak_document (doc_id INTEGER, doc_key VARCHAR, lane VARCHAR, "
                "title VARCHAR, text VARCHAR, ident_text VARCHAR)")
    rows = sorted(docs, key=lambda d: (d[1], d[0]))
    cols = ("doc_key", "lane", "title", "text", "ident_text")
    batch = pa.table({"doc_id": pa.array(range(len(rows)), pa.int32()),
                      **{c: pa.array([r[n] for r in rows], pa.string()) for n, c in enumerate(cols)}})
    con.register("batch", batch)
    con.execute("INSERT INTO ak_document SELECT * FROM batch")
    con.unregister("batch")


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    c = connect()
    _load(c, DOCS)
    build_lexical_index(c, chunk_docs=5)
    return c


def keys(res: list) -> list[str]:
    return [KEY[doc_id] for doc_id, _, _ in res]


def test_russian_morphology(con) -> None:
    res = lexical_search(con, "episodes", "миграция сайта")
    assert keys(res)[0] == "e01"  # «мигрировали сайт» + «миграцию»
    assert set(res[0][2]) == {"миграц", "сайт"}
    assert "e11" in keys(res)  # «миграция базы» shares one word, ranks lower
    assert res[0][1] > res[keys(res).index("e11")][1]


def test_english_stems(con) -> None:
    for q in ("deploy", "deployed", "DEPLOYING"):
        assert "e02" in keys(lexical_search(con, "episodes", q)), q


def test_mixed_ru_en_document(con) -> None:
    res = lexical_search(con, "episodes", "deploy скрипт ошибок")
    assert keys(res)[0] == "e03"
    assert set(res[0][2]) == {"deploy", "скрипт", "ошибок"}


def test_exact_ip_is_found_and_boosted(con) -> None:
    res = lexical_search(con, "episodes", "176.99.5.35")
    assert keys(res)[:2] == ["e04", "e05"]  # e05 only shares the words 176, 99, 5
    assert "=176.99.5.35" in res[0][2] and "=176.99.5.35" not in res[1][2]
    assert res[0][1] > res[1][1]
    # the score is the sum of stored impacts with the identifier term weighted IDENT_BOOST
    imp = dict(con.execute(
        "SELECT v.term, p.impact FROM fts_postings p JOIN fts_vocab v USING (term_id) WHERE p.doc_id = ?",
        [DOC_ID["e04"]]).fetchall())
    want = sum(imp[t] * (IDENT_BOOST if t.startswith("=") else 1) for t in res[0][2]) / IMPACT_SCALE
    assert res[0][1] == pytest.approx(want)
    assert "=176.99.5.35:8080" not in imp  # a space separates the IP from "порт 8080"
    assert keys(lexical_search(con, "episodes", "порт 8080"))[:2] == ["e04", "e05"]


def test_host_and_url_parts(con) -> None:
    for q in ("api.shop-example.com", "https://api.shop-example.com/v1/orders"):
        res = lexical_search(con, "episodes", q)
        assert keys(res)[0] == "e06" and "=api.shop-example.com" in res[0][2], q


def test_path_and_its_parts(con) -> None:
    for q in ("/etc/nginx/sites-enabled/iya.ru.conf", "iya.ru.conf", "sites-enabled"):
        res = lexical_search(con, "episodes", q)
        assert keys(res)[0] == "e07", q
        assert any(t.startswith("=") for t in res[0][2]), q


def test_skill_name_exact_hit_beats_shared_words(con) -> None:
    res = lexical_search(con, "skills", "deploy-iya-ru")
    assert keys(res) == ["s01", "s02"]
    assert "=deploy-iya-ru" in res[0][2] and res[1][2] == ["deploy"]
    assert res[0][1] > 2 * res[1][1]


def test_snake_and_camel_case(con) -> None:
    for q in ("max_retry_count", "retry count", "getUserName", "getusername", "user name"):
        assert keys(lexical_search(con, "episodes", q))[:1] == ["e08"], q
    assert {t for t, _, ident in query_terms(con, "max_retry_count getUserName") if ident} == {
        "=max_retry_count", "=getusername"}


def test_typographic_separators(con) -> None:
    terms = con.execute("SELECT akw_terms(?)", ["«деплой»\u00a0прошла—успешно…“готово” a-b"]).fetchone()[0]
    assert terms == ["депл", "прошл", "успешн", "готов", "b", "=a-b"]
    for q in ("деплой", "прошла", "успешно", "готово"):
        assert keys(lexical_search(con, "episodes", q)) == ["e09"], q


def test_stopwords_and_long_tokens_are_not_terms(con) -> None:
    blob = "x" * 80
    terms = con.execute("SELECT akw_terms(?)", [f"и в the of deploy {blob} /srv/{blob * 3}.conf"]).fetchone()[0]
    assert "deploy" in terms and "и" not in terms and "the" not in terms
    assert all(len(t) <= 201 for t in terms) and blob not in terms  # words <= 64, identifiers <= 200
    assert "srv" in terms  # the parts of an over-long identifier are still words


def test_yo_equals_ye(con) -> None:
    a, b = lexical_search(con, "episodes", "ёлка"), lexical_search(con, "episodes", "елка")
    assert keys(a) == ["e10"] and a == b
    assert keys(lexical_search(con, "episodes", "ЁЛКУ")) == ["e10"]


def test_lane_separation(con) -> None:
    mem = lexical_search(con, "memories", "миграция сайта")
    assert keys(mem) == ["m01"]
    assert "m01" not in keys(lexical_search(con, "episodes", "миграция сайта"))
    assert lexical_search(con, "code", "миграция") == []
    assert lexical_search(con, "no-such-lane", "миграция") == []


def test_ties_are_ordered_by_doc_id_and_repeatable(con) -> None:
    res = lexical_search(con, "memories", "одинаковый текст")
    assert keys(res) == ["m02", "m03"] and res[0][1] == res[1][1]
    runs = {repr(lexical_search(con, "episodes", "nginx сервер 176.99.5.35 миграция deploy")) for _ in range(5)}
    assert len(runs) == 1


def test_where_sql_filters_before_limit(con) -> None:
    full = keys(lexical_search(con, "episodes", "миграция"))
    assert full[:2] == ["e11", "e01"]  # «Миграция базы» says it twice in fewer words
    res = lexical_search(con, "episodes", "миграция", k=1, where_sql=f"d.doc_key <> {literals.text('e11')}")
    assert keys(res) == ["e01"]  # not empty: the filter ran before LIMIT 1
    assert lexical_search(con, "episodes", "миграция", where_sql=f"d.title = {literals.text('нет такого')}") == []


def test_query_is_a_literal(con) -> None:
    for q in NASTY:
        assert isinstance(lexical_search(con, "episodes", q), list), q
        assert isinstance(query_terms(con, q), list), q
    assert keys(lexical_search(con, "episodes", "(сайт OR deploy)"))[:1] in (["e01"], ["e02"], ["e03"])
    assert con.execute("SELECT count(*) FROM fts_postings").fetchone()[0] > 0
    assert lexical_search(con, "episodes", "the a of") == []  # stopwords only


def test_build_matches_the_query_macro(con) -> None:
    """The build tokenizes distinct chunks; per document it must equal akw_terms() of its text."""
    rows = con.execute("SELECT doc_id, akw_terms(concat_ws(' ', title, text, ident_text)) FROM ak_document").fetchall()
    got = {}
    for doc_id, term in con.execute(
            "SELECT p.doc_id, v.term FROM fts_postings p JOIN fts_vocab v USING (term_id)").fetchall():
        got.setdefault(doc_id, set()).add(term)
    assert {d: set(t) for d, t in rows if t} == got


def test_impacts_are_bm25_per_lane(con) -> None:
    rows = con.execute("SELECT doc_id, lane, akw_terms(concat_ws(' ', title, text, ident_text)) "
                       "FROM ak_document").fetchall()
    lane_docs = Counter(lane for _, lane, _ in rows)
    dl = {d: len(t) for d, _, t in rows}
    avgdl = {lane: sum(dl[d] for d, ln, _ in rows if ln == lane) / n for lane, n in lane_docs.items()}
    df = Counter((lane, t) for _, lane, terms in rows for t in set(terms))
    d = DOC_ID["e01"]
    tf = Counter(next(t for i, _, t in rows if i == d))
    stored = dict(con.execute("SELECT v.term, p.impact FROM fts_postings p JOIN fts_vocab v USING (term_id) "
                              "WHERE p.doc_id = ?", [d]).fetchall())
    assert set(stored) == set(tf)
    for term, f in tf.items():
        n, m = lane_docs["episodes"], df[("episodes", term)]
        idf = math.log(1 + (n - m + 0.5) / (m + 0.5))
        want = idf * f * (BM25_K1 + 1) / (f + BM25_K1 * (1 - BM25_B + BM25_B * dl[d] / avgdl["episodes"]))
        assert stored[term] == round(want * IMPACT_SCALE), term
    # per-lane statistics: the same word has a different idf in memories (1 of 3 docs)
    lane_stats = dict(con.execute("SELECT lane, n_docs FROM fts_lane_stats").fetchall())
    assert lane_stats == dict(lane_docs)


def test_rebuild_is_identical_whatever_the_slicing(con) -> None:
    other = connect()
    _load(other, DOCS)
    build_lexical_index(other, chunk_docs=200_000)
    for table, order in (("fts_vocab", "term"), ("fts_postings", "lane, term_id, doc_id"),
                         ("fts_lane_stats", "lane")):
        sql = f"SELECT * FROM {table} ORDER BY {order}"
        assert con.execute(sql).fetchall() == other.execute(sql).fetchall(), table
    q = "миграция сайта deploy 176.99.5.35"
    assert lexical_search(con, "episodes", q) == lexical_search(other, "episodes", q)
    before = other.execute("SELECT * FROM fts_postings").fetchall()
    build_lexical_index(other)  # in place: tables replaced, same content
    assert other.execute("SELECT * FROM fts_postings").fetchall() == before
    # the physical order is the sorted order (what the zone maps rely on)
    phys = other.execute("SELECT lane, term_id, doc_id FROM fts_postings").fetchall()
    assert phys == sorted(phys)


def test_empty_corpus_and_reader_without_macros(tmp_path) -> None:
    c = connect()
    _load(c, [])
    stats = build_lexical_index(c)
    assert stats["docs"] == 0 and stats["postings"] == 0
    assert lexical_search(c, "episodes", "что угодно") == []
    db = tmp_path / "g.duckdb"
    w = connect(db)
    _load(w, DOCS)
    build_lexical_index(w)
    w.execute("DROP MACRO akw_terms")  # e.g. an index written by an older builder
    w.close()
    r = connect(db, read_only=True)
    assert keys(lexical_search(r, "episodes", "миграция сайта"))[0] == "e01"


def test_maxscore_pruning_equals_full_evaluation() -> None:
    """Pruned answers must be identical to the full aggregation (scores, order, matched terms)."""
    corpus = Corpus(seed=3)
    docs, queries = [], []
    for i in range(2500):
        lane, title, text, ident = corpus.doc()
        docs.append((f"x{i:05d}", lane, title, text, ident))
        if i % 40 == 0:
            queries.append((lane, corpus.query(text)))
    c = connect()
    _load(c, docs)
    build_lexical_index(c, chunk_docs=1000)
    used = Counter()
    for lane, q in queries:
        for where in ("", f"d.doc_key >= {literals.text('x01000')}"):
            full, s_full = search_with_strategy(c, lane, q, 10, where, prune_min_postings=10**12)
            got, s_got = search_with_strategy(c, lane, q, 10, where, prune_min_postings=0,
                                              essential_postings=60)
            assert got == full, (lane, q, where)
            assert s_full in ("full", "none")
            used[s_got] += 1
    assert used["pruned"] >= 10, used  # the bound held often enough to matter
