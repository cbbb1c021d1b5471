-- Step 1c (long postings only): per-lane df and impact upper bound of the query's terms.
SELECT term_id, df, max_impact
FROM fts_lane_terms
WHERE lane = {lane} AND term_id IN ({term_ids})
ORDER BY term_id;
