-- Step 3: signatures not known yet (a text without any term is never stored, so it is
-- tokenized again each build: it is cheap), each tokenized through its first document.
CREATE OR REPLACE TEMP TABLE fts_sig_new AS
SELECT sig, min(doc_id) AS doc_id
FROM fts_doc_sig
WHERE sig NOT IN (SELECT sig FROM fts_sig_tid)
GROUP BY sig;
