-- Step 2 (only when the previous generation, attached read-only as `prev`, was built by the
-- same tokenizer, DuckDB and fts extension): the term counts of texts it already tokenized.
-- Its final term ids become this build's provisional ids; final ids are re-ranked in
-- fts_tidmap, so reused and freshly tokenized texts end up with exactly a full build's ids.
-- Its text ids are doc_ids of its fts_doc_sig, which gives their signatures.
INSERT INTO fts_termdict
SELECT term, term_id FROM prev.fts_vocab;

INSERT INTO fts_text_tid
SELECT t.text_id, p.term_id, p.tf
FROM prev.fts_text_terms AS p
JOIN prev.fts_doc_sig AS ps ON ps.doc_id = p.text_id
JOIN fts_text AS t ON t.sig = ps.sig;

-- every text of the previous generation was tokenized there (a text without terms has no rows)
UPDATE fts_text SET known = true
WHERE sig IN (SELECT sig FROM prev.fts_doc_sig);
