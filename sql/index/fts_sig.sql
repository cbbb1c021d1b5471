-- Incremental lexical build (warehouse/index_build.py), step 1: the tokenizer input of every
-- document and its md5. Terms depend only on that text, so a document whose signature was
-- tokenized before (by an earlier document of this build or by the previous generation) is not
-- tokenized again: at 100k documents only ~25% of the texts are distinct, and a rerun after one
-- changed session finds all but a handful in the previous generation.
--   fts_doc_sig  (stored) doc_id -> sig; the next build looks its signatures up here
--   fts_sig_tid  (TEMP)   sig, provisional term id, tf: the distinct texts as integers
--   fts_sig_new  (TEMP)   signatures still to tokenize, each with its first document
CREATE OR REPLACE TABLE fts_doc_sig AS
SELECT doc_id, md5_number(concat_ws(' ', title, text, ident_text)) AS sig
FROM ak_document
ORDER BY doc_id;

CREATE OR REPLACE TEMP TABLE fts_chunkmap (chunk VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_termdict (term VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_sig_tid (sig UHUGEINT, tid INTEGER, tf INTEGER);
