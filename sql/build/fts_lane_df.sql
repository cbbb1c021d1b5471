-- Build staging: per-lane document frequency of each term (the idf is per lane).
CREATE OR REPLACE TEMP TABLE fts_lane_df AS
SELECT l.lane_no, t.tid, count(*)::INTEGER AS df
FROM fts_doc_terms AS t
JOIN fts_doc_len AS l USING (doc_id)
GROUP BY l.lane_no, t.tid;
