-- Fragment: the postings of ONE query term in one lane. lexical_search.sql unions one of these per
-- term ({term_id} = a literal integer): an equality on the sorted term_id lets zone maps skip every
-- row group but the term's own, where one `term_id IN (…)` list is pruned by its min..max range
-- only (a query's terms spread over the whole vocabulary: it read half the table).
SELECT doc_id, term_id, impact FROM fts_postings WHERE lane = {lane} AND term_id = {term_id}
