-- Per-lane BM25 collection statistics: lanes are ranked separately, so N and avgdl are per lane.
CREATE OR REPLACE TABLE fts_lane_stats AS
SELECT lane,
       lane_no,
       count(*)::INTEGER AS n_docs,
       coalesce(avg(dl), 0)::DOUBLE AS avgdl,
       min(doc_id)::INTEGER AS min_doc_id,
       max(doc_id)::INTEGER AS max_doc_id
FROM fts_doc_len
GROUP BY lane, lane_no
ORDER BY lane;
