-- Fragment for {candidates} in lexical_search.sql (MaxScore): only documents that hold one of
-- the essential (rarer) terms are aggregated; the common terms are then only probed for them.
-- {essential_postings} = lexical_postings.sql once per essential term, UNION ALL.
AND doc_id IN (SELECT doc_id FROM ({essential_postings}))
