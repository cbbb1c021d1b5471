-- Fragment for {filter} in lexical_search.sql: the caller's trusted predicate on ak_document
-- (alias d; values in it are literals.py literals), joined to the aggregated hits before ORDER BY
-- ... LIMIT. d.lane = {lane}: ak_document is sorted by (lane, doc_key), so zone maps skip the
-- other lanes' row groups and the join's estimate stays the lane's size (the code lane: 15 ->
-- 2.5 ms at 1M). A selective filter (sessions, actors) uses lexical_prefilter.sql instead.
JOIN ak_document AS d ON d.doc_id = h.doc_id
WHERE d.lane = {lane} AND ({where_sql})
