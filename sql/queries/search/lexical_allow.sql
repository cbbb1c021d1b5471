-- Fragment for {allow} in lexical_search.sql (access control, docs/access.md): only the documents the
-- principal may see leave the aggregation, before ORDER BY ... LIMIT: a forbidden document never takes a
-- place in the lane's top k. {bits} names the principal's bitstring variable on this cursor (bit doc_id
-- set = visible; sql/queries/search/access_bits.sql, warehouse/search/access.py): a bit probe per aggregated
-- document, no join (the lane's own filters keep theirs). A missing variable is NULL: nothing passes.
HAVING get_bit(getvariable('{bits}'), doc_id::INTEGER) = 1
