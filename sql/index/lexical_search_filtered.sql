-- Step 2 with filters: as lexical_search.sql, then the caller's trusted predicate {where_sql}
-- on ak_document (alias d, its own positional ? parameters) BEFORE the limit.
WITH hits AS (
    SELECT doc_id,
           sum(impact * CASE WHEN term_id IN ({ident_ids}) THEN {ident_boost} ELSE 1 END) AS score,
           bit_or(CASE term_id {term_bits} END) AS matched
    FROM fts_postings
    WHERE lane = ? AND term_id IN ({term_ids})
    GROUP BY doc_id
)
SELECT h.doc_id, h.score, h.matched
FROM hits AS h
JOIN ak_document AS d ON d.doc_id = h.doc_id
WHERE ({where_sql})
ORDER BY h.score DESC, h.doc_id
LIMIT {k};
