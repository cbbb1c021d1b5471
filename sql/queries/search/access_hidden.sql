-- The content-free hint's one statement (warehouse/search/lane_runner.py hidden_hits): documents of the
-- answering lanes that the principal may NOT see ({hidden}: a predicate on alias d) and that hold every
-- one of the query's rarest known terms. {postings} = lexical_postings.sql once per (lane, term), UNION
-- ALL (zone maps skip all other row groups; a (lane, term, doc) posting is unique, so count(*) counts
-- terms); {documents} joins ak_document as d only when a request filter needs its columns
-- (`held AS h JOIN ak_document AS d …`), else is `held AS d` (the postings are the answering lanes'
-- already); {lane_filters} = each lane's request filters (`d.lane = '…' AND (…)`, OR-ed) or `true`;
-- {terms} = how many rare terms a document must hold. Only doc_ids leave this statement, and only the
-- rights they hold leave the search (access.View.rights_of).
WITH held AS (
    SELECT doc_id FROM ({postings}) AS p GROUP BY doc_id HAVING count(*) = {terms}
)
SELECT d.doc_id FROM {documents}
WHERE ({lane_filters}) AND {hidden}
ORDER BY d.doc_id
LIMIT {k};
