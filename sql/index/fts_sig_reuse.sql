-- Step 2 (only when the previous generation, attached read-only as `prev`, was built by the
-- same tokenizer and DuckDB): the term counts of texts it already tokenized. Its final term ids
-- become this build's provisional ids; final ids are re-ranked in fts_tidmap, so reused and
-- freshly tokenized texts end up with exactly the ids a full build gives.
INSERT INTO fts_termdict
SELECT term, term_id FROM prev.fts_vocab;

INSERT INTO fts_sig_tid
SELECT p.sig, p.term_id, p.tf
FROM prev.fts_sig_terms AS p
SEMI JOIN fts_doc_sig AS s USING (sig);
