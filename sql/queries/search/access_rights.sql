-- Every right of the generation that holds documents (source system, grant kind, grant key), each with
-- its documents as a bitstring (bit n set = doc_id n holds it), in a stable order: read once per lane
-- cursor and principal by warehouse/search/access.py, so the content-free hint learns which rights hold
-- its few hidden doc_ids by a bit test in memory, not a scan of ak_acl_document per search.
-- {max}: max(doc_id) of the generation, a literal integer as bitstring_agg requires (access_bits.sql).
SELECT source, grant_kind, grant_key, bitstring_agg(doc_id::INTEGER, 0, {max})::VARCHAR AS docs
FROM ak_acl_document
GROUP BY source, grant_kind, grant_key
ORDER BY source, grant_kind, grant_key;
