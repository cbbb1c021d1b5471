-- Step 2 of a query: sum the precomputed impacts of the query's term ids per document of one
-- lane. {postings} = lexical_postings.sql once per query term (LITERAL integers from step 1),
-- UNION ALL: each keeps zone-map skipping on the sorted table (IN (subquery) loses it, a literal
-- IN list keeps only its min..max range). Exact-identifier terms ({ident_ids}) weigh
-- {ident_boost}x. {term_bits} maps each term_id to one bit, so `matched` says which query terms
-- a document has without a list aggregate. {candidates} is empty or lexical_candidates.sql;
-- {filter} is empty or lexical_filter.sql, {prefilter} empty or lexical_prefilter.sql (never
-- both). {allow} is empty or lexical_allow.sql (access control: the principal's documents). Ties are
-- broken by doc_id: same index, same list.
WITH hits AS (
    SELECT doc_id,
           sum(impact * CASE WHEN term_id IN ({ident_ids}) THEN {ident_boost} ELSE 1 END) AS score,
           bit_or(CASE term_id {term_bits} END) AS matched
    FROM ({postings}) AS p
    WHERE true {candidates} {prefilter}
    GROUP BY doc_id
    {allow}
)
SELECT h.doc_id, h.score, h.matched
FROM hits AS h
{filter}
ORDER BY h.score DESC, h.doc_id
LIMIT {k};
