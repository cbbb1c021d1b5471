-- Step 4, one slice of new texts (text_id = first doc_id in [$lo, $hi)): the same chunk pipeline
-- as fts_staging_slice.sql, counted per text instead of per document.
CREATE OR REPLACE TEMP TABLE fts_chunk AS
SELECT n.doc_id AS text_id, unnest(akw_chunks(concat_ws(' ', d.title, d.text, d.ident_text))) AS chunk
FROM fts_sig_new AS n
JOIN ak_document AS d ON d.doc_id = n.doc_id
WHERE n.doc_id >= $lo AND n.doc_id < $hi;

CREATE OR REPLACE TEMP TABLE fts_newchunk AS
SELECT chunk, unnest(CASE WHEN len(terms) = 0 THEN [NULL::VARCHAR] ELSE terms END) AS term
FROM (
    SELECT chunk, akw_chunk_terms(chunk) AS terms
    FROM (SELECT DISTINCT chunk FROM fts_chunk) AS c
    ANTI JOIN fts_chunkmap AS m USING (chunk)
);

INSERT INTO fts_termdict
SELECT term, ((SELECT coalesce(max(tid), -1) FROM fts_termdict) + row_number() OVER (ORDER BY term))::INTEGER
FROM (SELECT DISTINCT term FROM fts_newchunk WHERE term IS NOT NULL) AS n
ANTI JOIN fts_termdict AS d USING (term);

INSERT INTO fts_chunkmap
SELECT n.chunk, d.tid
FROM fts_newchunk AS n
LEFT JOIN fts_termdict AS d USING (term);

INSERT INTO fts_text_tid
SELECT c.text_id, m.tid, count(*)::INTEGER
FROM fts_chunk AS c
JOIN fts_chunkmap AS m USING (chunk)
WHERE m.tid IS NOT NULL
GROUP BY c.text_id, m.tid;

DROP TABLE fts_chunk;
DROP TABLE fts_newchunk;
