-- The content-free hint's one statement (warehouse/search/lane_runner.py hidden_hits): documents of the
-- answering lanes that the principal may NOT see ({hidden}: a predicate on ak_document alias d) and that
-- hold every one of the query's rarest known terms. {postings} = lexical_postings.sql once per (lane,
-- term), UNION ALL (zone maps skip all other row groups); {lane_filters} = each lane's request filters
-- (`d.lane = '…' AND (…)`, OR-ed); {terms} = how many rare terms a document must hold. Only doc_ids
-- leave this statement, and only their source system and rights leave the search (access_hint.sql).
WITH held AS (
    SELECT doc_id FROM ({postings}) AS p GROUP BY doc_id HAVING count(DISTINCT term_id) = {terms}
)
SELECT d.doc_id FROM held h JOIN ak_document AS d ON d.doc_id = h.doc_id
WHERE ({lane_filters}) AND {hidden}
ORDER BY d.doc_id
LIMIT {k};
