-- Build staging: provisional id -> final term_id (the rank of the term, so the same corpus gets
-- the same ids whatever the slicing) and the document frequency over all lanes.
CREATE OR REPLACE TEMP TABLE fts_tidmap AS
SELECT d.tid,
       d.term,
       (row_number() OVER (ORDER BY d.term) - 1)::INTEGER AS term_id,
       f.df::INTEGER AS df
FROM fts_termdict AS d
JOIN (SELECT tid, count(*) AS df FROM fts_doc_terms GROUP BY tid) AS f USING (tid);
