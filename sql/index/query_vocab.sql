-- Step 1b: look the query's terms up in the vocabulary. {placeholders} is a run of '?' (one per
-- term, values bound): a constant IN list is answered from the fts_vocab_term index, a join or
-- IN (subquery) scans the whole vocabulary (~4 ms at 100k documents vs ~0.4 ms).
SELECT term, term_id, df
FROM fts_vocab
WHERE term IN ({placeholders})
ORDER BY term_id;
