-- Incremental lexical build (warehouse/indexing/lexical_index.py), step 1: the tokenizer input of every
-- document and its md5. Terms depend only on that text, so a text tokenized before (by an
-- earlier document of this build or by the previous generation) is not tokenized again: at 100k
-- documents only ~25% of the texts are distinct, and a rerun after one changed session finds
-- all but a handful in the previous generation.
--   fts_doc_sig   (stored) doc_id -> sig; the next build looks its texts up here
--   fts_text      (TEMP)   one row per distinct text: text_id = its first doc_id (an integer
--                          key for the big joins), known = tokenized by the previous generation
--   fts_text_tid  (TEMP)   text_id, provisional term id, tf: the distinct texts as integers
CREATE OR REPLACE TABLE fts_doc_sig AS
SELECT doc_id, md5_number(concat_ws(' ', title, text, ident_text)) AS sig
FROM ak_document
ORDER BY doc_id;

CREATE OR REPLACE TEMP TABLE fts_text AS
SELECT sig, min(doc_id) AS text_id, false AS known
FROM fts_doc_sig
GROUP BY sig;

CREATE OR REPLACE TEMP TABLE fts_chunkmap (chunk VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_termdict (term VARCHAR, tid INTEGER);
CREATE OR REPLACE TEMP TABLE fts_text_tid (text_id INTEGER, tid INTEGER, tf INTEGER);
