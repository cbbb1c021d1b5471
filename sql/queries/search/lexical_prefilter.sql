-- Fragment for {prefilter} in lexical_search.sql: a selective predicate on ak_document (alias d;
-- a few sessions or actors) applied to the postings before they are aggregated, so only those
-- documents are scored (at 1M ~40% faster than joining the aggregated hits). Not for broad
-- filters: the set of matching doc_ids is this join's build side (a workspace's 400k documents
-- ran an 80 MB search process out of memory).
AND doc_id IN (SELECT d.doc_id FROM ak_document AS d WHERE d.lane = {lane} AND ({where_sql}))
