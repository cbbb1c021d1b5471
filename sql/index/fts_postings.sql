-- Impact table: the BM25 weight of each (term, document), precomputed per lane and quantised
-- to integer milli-units (integer sums do not depend on summation order: deterministic scores).
-- Sorted by (lane, term_id, doc_id) so a query's literal term_id IN (...) list lets DuckDB's
-- zone maps skip every row group that holds none of the query's terms. lane_no sorts like lane
-- but as an integer key (sorting on the VARCHAR doubled the build time).
CREATE OR REPLACE TABLE fts_postings AS
SELECT s.lane,
       v.term_id,
       t.doc_id,
       round(1000.0
             * ln(1 + (s.n_docs - f.df + 0.5) / (f.df + 0.5))
             * t.tf * ($k1 + 1)
             / (t.tf + $k1 * (1 - $b + $b * l.dl / greatest(s.avgdl, 1e-9))))::INTEGER AS impact
FROM fts_doc_terms AS t
JOIN fts_doc_len AS l USING (doc_id)
JOIN fts_tidmap AS v USING (tid)
JOIN fts_lane_df AS f ON f.lane_no = l.lane_no AND f.tid = t.tid
JOIN fts_lane_stats AS s ON s.lane_no = l.lane_no
ORDER BY l.lane_no, v.term_id, t.doc_id;
