-- Which nominated skill documents ({doc_ids}) the search may return: the skills lane's request filters and
-- the principal's view, {where} (a trusted predicate on `d`), as the lexical lane applies them.
SELECT d.doc_id
FROM ak_document AS d
WHERE d.doc_id IN ({doc_ids}) AND {where}
ORDER BY d.doc_id
