-- Stored for the next build: the term counts of each distinct text by final term_id (the
-- previous generation's reuse source, see fts_sig_reuse.sql). Sorted, so the file is the same
-- whether the texts were reused or tokenized.
CREATE OR REPLACE TABLE fts_sig_terms AS
SELECT t.sig, v.term_id, t.tf
FROM fts_sig_tid AS t
JOIN fts_tidmap AS v USING (tid)
ORDER BY t.sig, v.term_id;
