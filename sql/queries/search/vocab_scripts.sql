-- The share of the index's term postings written in Cyrillic, measured once by the build (indexing/child.py
-- keeps it in akw_meta.cyrillic_share for warehouse/search/match.py and `akw status`): a Russian question
-- over an index with almost none is about work logged in another language, which only meaning can bridge.
WITH vocab AS (
    SELECT term, df FROM fts_vocab
),
by_script AS (
    SELECT coalesce(sum(df) FILTER (WHERE regexp_matches(term, '[а-яёА-ЯЁ]')), 0) AS cyrillic,
           coalesce(sum(df), 0) AS total
    FROM vocab
)
SELECT CASE WHEN total > 0 THEN cyrillic / total ELSE 0 END AS cyrillic_share
FROM by_script
