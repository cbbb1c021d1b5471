-- The word terms of the documents {doc_ids} that hold a camelCase word: the stems of their whole
-- words, camelCase parts left out (fusion.word_groups_in_one_doc). The index splits
-- `ActiveSqlTransaction` into "active sql transaction" so code search finds it by its parts, but a
-- document that only names that identifier does not talk about "active": the one-document gate
-- counts a query word there only when the document uses it as a word. Documents without camelCase
-- are not returned (every word term of theirs is a word). Letters as in sql/build/tokenizer.sql.
WITH docs AS (
    SELECT doc_id, concat_ws(' ', title, text, ident_text) AS body
    FROM ak_document
    WHERE doc_id IN ({doc_ids})
),

camel AS (
    SELECT doc_id, body
    FROM docs
    WHERE regexp_matches(body, '[a-zа-яё][A-ZА-ЯЁ]')
),

words AS (
    SELECT DISTINCT doc_id, akw_word_term(w) AS term
    FROM (
        SELECT doc_id,
               unnest(regexp_extract_all(body,
                   '[0-9A-Za-z\x{00C0}-\x{024F}\x{0370}-\x{052F}\x{3040}-\x{9FFF}\x{AC00}-\x{D7AF}]+')) AS w
        FROM camel
    ) AS t
)

SELECT doc_id, list(term ORDER BY term) AS terms
FROM words
WHERE term IS NOT NULL
GROUP BY doc_id
