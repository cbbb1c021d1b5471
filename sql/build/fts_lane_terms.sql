-- Per lane and term: document frequency and the largest stored impact. The query path uses
-- max_impact as an upper bound (MaxScore) to skip aggregating very common terms exactly.
CREATE OR REPLACE TABLE fts_lane_terms AS
SELECT lane, term_id, count(*)::INTEGER AS df, max(impact)::INTEGER AS max_impact
FROM fts_postings
GROUP BY lane, term_id
ORDER BY lane, term_id;
