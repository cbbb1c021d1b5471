-- Step 5: every document gets the term counts of its signature: the (doc_id, tid, tf) rows the
-- rest of the build (fts_tidmap … fts_postings_lane) reads, as in a full tokenization.
CREATE OR REPLACE TEMP TABLE fts_doc_terms AS
SELECT s.doc_id, t.tid, t.tf
FROM fts_doc_sig AS s
JOIN fts_sig_tid AS t USING (sig);
