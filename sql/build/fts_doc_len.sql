-- Build staging: document length in terms (after stopwords) and lane, for BM25 length norm.
-- lane_no (rank of the lane name) lets the big joins use integer keys (a VARCHAR lane key in
-- the postings sort doubled its time).
CREATE OR REPLACE TEMP TABLE fts_doc_len AS
SELECT d.doc_id,
       d.lane,
       dense_rank() OVER (ORDER BY d.lane)::UTINYINT AS lane_no,
       coalesce(l.dl, 0)::INTEGER AS dl
FROM ak_document AS d
LEFT JOIN (SELECT doc_id, sum(tf) AS dl FROM fts_doc_terms GROUP BY doc_id) AS l USING (doc_id);
