-- Step 3: the texts still to tokenize, each through its first document.
CREATE OR REPLACE TEMP TABLE fts_sig_new AS
SELECT text_id AS doc_id
FROM fts_text
WHERE NOT known;
