-- Loanwords (search/translation.py `loanword_terms`): the vocabulary's terms in [{lo}, {hi}), the terms that
-- begin with one 4-letter spelling of a Russian word. The caller joins one range per spelling with UNION ALL:
-- fts_vocab is sorted by term, so each range reads only its row groups (1.7 ms for three at 1M documents,
-- against 8 ms for one `left(term, 4) IN (...)` scan of the 262k terms). {lo} and {hi} are text literals.
SELECT term
FROM fts_vocab
WHERE term >= {lo} AND term < {hi}
