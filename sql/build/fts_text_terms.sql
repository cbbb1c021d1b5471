-- Stored for the next build: the term counts of each distinct text (text_id = its first doc_id,
-- whose signature fts_doc_sig holds) by final term_id: the reuse source of fts_sig_reuse.sql.
-- Integer keys only (a 128-bit signature per term row doubled the size). Not sorted: only joined.
CREATE OR REPLACE TABLE fts_text_terms AS
SELECT t.text_id, v.term_id, t.tf
FROM fts_text_tid AS t
JOIN fts_tidmap AS v USING (tid);
