-- Fragment for {filter} in lexical_search.sql: the caller's trusted predicate on ak_document
-- (alias d; values in it are literals.py literals), applied before ORDER BY ... LIMIT.
JOIN ak_document AS d ON d.doc_id = h.doc_id
WHERE ({where_sql})
