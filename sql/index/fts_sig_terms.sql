-- Stored for the next build: the term counts of each distinct text by final term_id (the
-- previous generation's reuse source, see fts_sig_reuse.sql). Not sorted: only ever joined.
CREATE OR REPLACE TABLE fts_sig_terms AS
SELECT t.sig, v.term_id, t.tf
FROM fts_sig_tid AS t
JOIN fts_tidmap AS v USING (tid);
