-- One slice of ak_document (doc_id in [$lo, $hi)). Splitting on whitespace is cheap; the regex
-- tokenizer and the Snowball stemmers then run once per chunk never seen in earlier slices.
CREATE OR REPLACE TEMP TABLE fts_chunk AS
SELECT doc_id, unnest(akw_chunks(concat_ws(' ', title, text, ident_text))) AS chunk
FROM ak_document
WHERE doc_id >= $lo AND doc_id < $hi;

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

INSERT INTO fts_doc_terms
SELECT c.doc_id, m.tid, count(*)::INTEGER
FROM fts_chunk AS c
JOIN fts_chunkmap AS m USING (chunk)
WHERE m.tid IS NOT NULL
GROUP BY c.doc_id, m.tid;

DROP TABLE fts_chunk;
DROP TABLE fts_newchunk;
