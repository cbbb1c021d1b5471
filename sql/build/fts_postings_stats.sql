-- One lane's postings (the same impacts as fts_postings_lane.sql, bit for bit), for the build
-- child, which binds no parameters ($…: literals written by warehouse/indexing/lexical_index.py). The idf
-- factor per term and the length norm per document are computed once, not per posting, with
-- the very same floating-point operations in the same order: 1000.0·idf · tf · (k1+1) / (tf + K).
CREATE OR REPLACE TEMP TABLE fts_term_w AS
SELECT f.tid, v.term_id, 1000.0 * ln(1 + (s.n_docs - f.df + 0.5) / (f.df + 0.5)) AS w
FROM fts_lane_df AS f
JOIN fts_tidmap AS v USING (tid)
JOIN fts_lane_stats AS s USING (lane_no)
WHERE f.lane_no = $lane_no;

CREATE OR REPLACE TEMP TABLE fts_doc_k AS
SELECT l.doc_id, $k1 * (1 - $b + $b * l.dl / greatest(s.avgdl, 1e-9)) AS k
FROM fts_doc_len AS l
JOIN fts_lane_stats AS s USING (lane_no)
WHERE l.lane_no = $lane_no;

INSERT INTO fts_postings
SELECT $lane, term_id, doc_id, impact
FROM (  -- sorted without the lane name: a constant string in the sort payload cost ~15% of the sort
    SELECT w.term_id, t.doc_id, round(w.w * t.tf * ($k1 + 1) / (t.tf + d.k))::INTEGER AS impact
    FROM fts_doc_terms AS t
    JOIN fts_doc_k AS d USING (doc_id)
    JOIN fts_term_w AS w USING (tid)
    WHERE t.doc_id BETWEEN $lo AND $hi
    ORDER BY w.term_id, t.doc_id
);

DROP TABLE fts_term_w;
DROP TABLE fts_doc_k;
