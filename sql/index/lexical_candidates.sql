-- Fragment for {candidates} in lexical_search.sql (MaxScore): only documents that hold one of
-- the essential (rarer) terms are aggregated; the common terms are then only probed for them.
AND doc_id IN (
    SELECT doc_id FROM fts_postings WHERE lane = ? AND term_id IN ({essential_ids}))
