-- Step 5: every document gets the term counts of its text: the (doc_id, tid, tf) rows the rest
-- of the build (fts_tidmap … fts_postings_stats) reads, as in a full tokenization.
CREATE OR REPLACE TEMP TABLE fts_doc_text AS
SELECT s.doc_id, x.text_id
FROM fts_doc_sig AS s
JOIN fts_text AS x USING (sig);

CREATE OR REPLACE TEMP TABLE fts_doc_terms AS
SELECT d.doc_id, t.tid, t.tf
FROM fts_doc_text AS d
JOIN fts_text_tid AS t USING (text_id);

DROP TABLE fts_doc_text;
