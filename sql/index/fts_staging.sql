-- Build staging (TEMP tables, dropped when the build ends):
--   fts_chunkmap  distinct whitespace chunk -> provisional term id (NULL: the chunk has no term)
--   fts_termdict  term -> provisional id, assigned in first-seen slice order, then by term
--   fts_doc_terms (doc_id, tid, tf): the corpus as integers, filled one doc_id slice at a time
CREATE OR REPLACE TEMP TABLE fts_chunkmap (chunk VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_termdict (term VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_doc_terms (doc_id INTEGER, tid INTEGER, tf INTEGER);
