-- One lane's postings, appended in (term_id, doc_id) order. Per lane, because one sort of all
-- postings spilled ~11 GB to disk at 1M documents under a 1 GB memory_limit (104 s); the doc_id
-- range ($lo..$hi, from fts_lane_stats) lets the scan of fts_doc_terms skip other lanes' slices.
INSERT INTO fts_postings
SELECT $lane,
       v.term_id,
       t.doc_id,
       round(1000.0
             * ln(1 + ($n_docs - f.df + 0.5) / (f.df + 0.5))
             * t.tf * ($k1 + 1)
             / (t.tf + $k1 * (1 - $b + $b * l.dl / greatest($avgdl, 1e-9))))::INTEGER
FROM fts_doc_terms AS t
JOIN fts_doc_len AS l USING (doc_id)
JOIN fts_tidmap AS v USING (tid)
JOIN fts_lane_df AS f ON f.lane_no = l.lane_no AND f.tid = t.tid
WHERE t.doc_id BETWEEN $lo AND $hi AND l.lane_no = $lane_no AND f.lane_no = $lane_no
ORDER BY v.term_id, t.doc_id;
