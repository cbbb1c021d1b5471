"""RU/EN lexical index over `ak_document`: a BM25 impact table that DuckDB's zone maps can skip.

Why not `match_bm25` of the fts extension: it scans the whole index per query (hundreds of ms
at 1M documents), its default `ignore` regex drops digits (IPs, ports) and it stems with porter
only. Here BM25 term weights are precomputed per lane into `fts_postings`, sorted by
(lane, term_id, doc_id). A query is tokenized by the same SQL macro as the documents (the query
is a hex-encoded text literal, see literals.py), its terms are looked up in `fts_vocab` (step 1),
and the impacts are summed per term id (step 2), literal integers that keep row-group skipping.

All SQL lives in `sql/queries/*.sql` (the tokenizer in `sql/build/tokenizer.sql`); only integers
from step 1, literals.py literals and the caller's trusted `where_sql` are ever placed into SQL text.
"""

from __future__ import annotations

from typing import Any

import duckdb

from warehouse.core import literals
from warehouse.core.sqlfiles import query_template, render
from warehouse.core.tokenizer import install_tokenizer

IDENT_BOOST = 2  # FR-5.8: an exact identifier term (IP, host, path, skill name) weighs double
IMPACT_SCALE = 1000  # impacts are stored as integer milli-units of BM25
MAX_QUERY_CHARS = 2000  # contract 000: a query is 1..2000 characters
MAX_QUERY_TERMS = 64  # one bit per term in `matched`; longer queries keep their rarest terms
# MaxScore pruning pays off only for long postings (measured at 1M docs: slower below ~200k
# postings in the lane, 44 -> 30 ms at 400-800k, 5x at 1.2M), so it is tried above this:
PRUNE_MIN_POSTINGS = 300_000
PRUNE_ESSENTIAL_POSTINGS = 50_000  # the rarer terms aggregated in full, up to this many postings
# A lane this small is read in one scan (`term_id IN (...)`, its few row groups); a larger one term
# by term, so zone maps skip all row groups but the terms' own (measured at 100k docs: 8.8 -> 6 ms).
PER_TERM_MIN_DOCS = 20_000

def _vocab_lookup(con: duckdb.DuckDBPyConnection, query: str) -> list[tuple[str, int, int]]:
    """(term, term_id, df) of the query's distinct terms that the vocabulary knows, by term_id."""
    return analyze(con, query)[1]


def analyze(con: duckdb.DuckDBPyConnection, query: str) -> tuple[list[str], list[tuple[str, int, int]]]:
    """All distinct terms of the query (known or not, sorted) and the known ones as (term, term_id, df).

    Callers that search several lanes analyze once and pass `found` to `lexical_search`; the
    unknown terms matter for query coverage (a query about things never indexed matches little).
    """
    terms = tokenize(con, query)
    return terms, lookup(con, terms)


def query_text(query: str) -> str:
    """The part of a query the tokenizer sees (contract 000: at most 2000 characters)."""
    return query[:MAX_QUERY_CHARS]


def with_tokenizer(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    """First value of the first row of `sql`, which uses the akw_* macros; a database whose builder
    did not store them gets them as temp macros of this connection first."""
    try:
        return con.execute(sql).fetchone()[0]
    except duckdb.CatalogException:
        install_tokenizer(con, temp=True)
        return con.execute(sql).fetchone()[0]


def tokenize(con: duckdb.DuckDBPyConnection, query: str) -> list[str]:
    """The distinct index terms of `query`, sorted (the query is a literals.py literal, never SQL)."""
    if not query or not query.strip():
        return []
    terms = with_tokenizer(con, render("query_tokens", query=literals.text(query_text(query))))
    return sorted(set(terms or []))


def tokenize_many(con: duckdb.DuckDBPyConnection, texts: list[str]) -> list[list[str]]:
    """`tokenize` for a batch of texts in one statement (each text's distinct terms, sorted)."""
    if not texts:
        return []
    rows = with_tokenizer(con, f"SELECT list_transform({literals.texts(texts)}, x -> akw_terms(x))")
    return [sorted(set(r or [])) for r in rows]


def lookup(con: duckdb.DuckDBPyConnection, terms: list[str]) -> list[tuple[str, int, int]]:
    """(term, term_id, df) of the terms the vocabulary knows, by term_id (one indexed IN-list lookup)."""
    if not terms:
        return []
    sql = render("query_vocab", terms=", ".join(literals.text(t) for t in terms))
    return [(t, int(i), int(df)) for t, i, df in con.execute(sql).fetchall()]


def query_terms(con: duckdb.DuckDBPyConnection, query: str) -> list[tuple[str, int, bool]]:
    """Terms of `query` found in the vocabulary: (term, term_id, is_identifier), by term_id.

    The query is a literal: quotes, OR, *, SQL in it are just text to tokenize.
    """
    return [(t, i, t.startswith("=")) for t, i, _ in _vocab_lookup(con, query)]


def lexical_search(
    con: duckdb.DuckDBPyConnection,
    lane: str,
    query: str,
    k: int = 30,
    where_sql: str = "",
    found: list[tuple[str, int, int]] | None = None,
    lane_docs: int | None = None,
    selective: bool = False,
    allow_table: str = "",
) -> list[tuple[int, float, list[str]]]:
    """Top-k documents of one lane by BM25: (doc_id, score, matched terms), score desc, doc_id asc.

    `where_sql` is a trusted predicate on ak_document alias `d` (values as literals.py literals);
    it is applied before the limit, to the postings when it is `selective` (few documents match:
    sessions, actors), else to the aggregated hits. `found` = `analyze(con, query)[1]` skips the
    lookup. `lane_docs` (the lane's document count, when known) picks one scan for a small lane.
    `allow_table` (access control) names the caller's bitstring variable of visible documents (access.View.bits).
    """
    return search_with_strategy(con, lane, query, k, where_sql, found=found, lane_docs=lane_docs,
                                selective=selective, allow_table=allow_table)[0]


def search_with_strategy(
    con: duckdb.DuckDBPyConnection,
    lane: str,
    query: str,
    k: int = 30,
    where_sql: str = "",
    *,
    prune_min_postings: int = PRUNE_MIN_POSTINGS,
    essential_postings: int = PRUNE_ESSENTIAL_POSTINGS,
    found: list[tuple[str, int, int]] | None = None,
    lane_docs: int | None = None,
    selective: bool = False,
    allow_table: str = "",
) -> tuple[list[tuple[int, float, list[str]]], str]:
    """lexical_search plus how it was answered: 'none', 'full', 'pruned' or 'pruned+full'."""
    k = int(k)
    found = _vocab_lookup(con, query) if found is None else found
    if not found or k <= 0:
        return [], "none"
    if len(found) > MAX_QUERY_TERMS:  # keep the most selective terms, deterministically
        found = sorted(sorted(found, key=lambda r: (r[2], r[1]))[:MAX_QUERY_TERMS], key=lambda r: r[1])
    plan = _Plan(found, k, where_sql, per_term=lane_docs is None or lane_docs >= PER_TERM_MIN_DOCS,
                 selective=selective, allow_table=allow_table)
    strategy = "full"
    small_lane = lane_docs is not None and lane_docs < PER_TERM_MIN_DOCS  # its postings are short anyway
    # with a filter the top k are rarer and score lower, so the bound almost never proves them and
    # the full query ran after the pruned one (measured at 1M, session filter: 144 ms instead of 44)
    filtered = bool(where_sql.strip() or allow_table)
    if not small_lane and not filtered and sum(df for _, _, df in found) > prune_min_postings:
        rows, tried = _search_pruned(con, lane, plan, prune_min_postings, essential_postings)
        if rows is not None:
            return plan.decode(rows), "pruned"
        strategy = "pruned+full" if tried else "full"
    return plan.decode(plan.run(con, lane)), strategy


class _Plan:
    """The step-2 SQL for one query: literal term ids, weights, bits, filter."""

    def __init__(self, found: list[tuple[str, int, int]], k: int, where_sql: str, per_term: bool = True,
                 selective: bool = False, allow_table: str = "") -> None:
        self.per_term, self.selective, self.allow_table = per_term, selective, allow_table
        self.terms = [term for term, _, _ in found]
        self.ids = [tid for _, tid, _ in found]
        self.weight = {tid: IDENT_BOOST if term.startswith("=") else 1 for term, tid, _ in found}
        self.k, self.where_sql = k, where_sql

    def run(self, con: duckdb.DuckDBPyConnection, lane: str, essential: list[int] | None = None) -> list[tuple]:
        ident_ids = [tid for tid, w in self.weight.items() if w != 1] or [-1]
        sql = render(
            "lexical_search",
            candidates=render("lexical_candidates", essential_postings=_postings(lane, essential, self.per_term))
            if essential else "",
            filter=self._filter("lexical_filter", lane) if not self.selective else "",
            prefilter=self._filter("lexical_prefilter", lane) if self.selective else "",
            allow=render("lexical_allow", bits=self.allow_table) if self.allow_table else "",
            postings=_postings(lane, self.ids, self.per_term),
            ident_ids=_ints(ident_ids),
            term_bits=" ".join(f"WHEN {tid} THEN {1 << n}::UBIGINT" for n, tid in enumerate(self.ids)),
            ident_boost=str(IDENT_BOOST),
            k=str(self.k),
        )  # one pass: no fragment (the trusted where_sql least of all) is scanned again
        return con.execute(sql).fetchall()

    def _filter(self, fragment: str, lane: str) -> str:
        return render(fragment, lane=literals.text(lane), where_sql=self.where_sql) if self.where_sql.strip() else ""

    def decode(self, rows: list[tuple]) -> list[tuple[int, float, list[str]]]:
        return [
            (int(doc_id), int(score) / IMPACT_SCALE, [t for n, t in enumerate(self.terms) if int(bits) >> n & 1])
            for doc_id, score, bits in rows
        ]


def _search_pruned(
    con: duckdb.DuckDBPyConnection, lane: str, plan: _Plan, min_postings: int, essential_postings: int
) -> tuple[list[tuple] | None, bool]:
    """MaxScore, exact: aggregate only documents holding a rarer ("essential") term.

    A document without any essential term scores at most the sum of the other terms' largest
    impacts (upper bound, integers); if that bound is below the k-th score found, no such
    document can enter the top k and the result equals the full evaluation. Returns
    (rows or None, whether a pruned query ran); None means: evaluate in full.
    """
    sql = render("query_lane_terms", term_ids=_ints(plan.ids), lane=literals.text(lane))
    stats = sorted((df, tid, mx) for tid, df, mx in con.execute(sql).fetchall())
    essential, budget = [], 0
    for df, tid, _ in stats:
        if essential and budget + df > essential_postings:
            break
        essential.append(tid)
        budget += df
    bound = sum(plan.weight[tid] * mx for _, tid, mx in stats if tid not in essential)
    if len(essential) == len(stats) or sum(df for df, _, _ in stats) <= min_postings:
        return None, False  # the lane's postings are short: full evaluation is cheaper
    rows = plan.run(con, lane, sorted(essential))
    if len(rows) == plan.k and bound < int(rows[-1][1]):
        return rows, True
    return None, True


def _postings(lane: str, ids: list[int], per_term: bool = True) -> str:
    """lexical_postings.sql once per term id, UNION ALL, or one scan of all the terms (`per_term=False`)."""
    lane_sql = literals.text(lane)
    if not per_term:  # the file's variant with one IN list for its equality
        scan = query_template("lexical_postings").replace("term_id = {term_id}", "term_id IN ({term_id})")
        return render("lexical_postings", scan, lane=lane_sql, term_id=_ints(ids))
    return " UNION ALL ".join(render("lexical_postings", lane=lane_sql, term_id=str(int(i))) for i in ids)


def _ints(ids: list[int]) -> str:
    return ",".join(str(int(i)) for i in ids)
