-- Impact table: the BM25 weight of each (term, document), precomputed per lane and quantised
-- to integer milli-units (integer sums do not depend on summation order: deterministic scores).
-- Stored sorted by (lane, term_id, doc_id) so a query's literal term_id IN (...) list lets
-- DuckDB's zone maps skip every row group that holds none of the query's terms. Filled one lane
-- at a time by fts_postings_lane.sql, in lane order, each insert sorted.
CREATE OR REPLACE TABLE fts_postings (
    lane    VARCHAR NOT NULL,
    term_id INTEGER NOT NULL,
    doc_id  INTEGER NOT NULL,
    impact  INTEGER NOT NULL
);
