-- Step 1b: look the query's terms up in the vocabulary. {terms} are the terms as hex-encoded text
-- literals (one per term): a constant IN list is answered from the fts_vocab_term index, a join or
-- IN (subquery) scans the whole vocabulary (~4 ms at 100k documents vs ~0.4 ms).
SELECT term, term_id, df
FROM fts_vocab
WHERE term IN ({terms})
ORDER BY term_id;
