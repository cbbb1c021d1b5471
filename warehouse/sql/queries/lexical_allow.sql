-- Fragment for {allow} in lexical_search.sql (access control, docs/access.md): only the documents the
-- principal may see ({table}: its per-cursor temp table of doc_ids, warehouse/search/access.py) leave
-- the aggregation, before ORDER BY ... LIMIT: a forbidden document never takes a place in the lane's
-- top k. A semi-join on doc_id alone, no join to ak_document (the lane's own filters keep theirs).
HAVING doc_id IN (SELECT doc_id FROM {table})
