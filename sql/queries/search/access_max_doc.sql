-- The largest doc_id of the generation: the length of the principal's bitstring (access_bits.sql).
SELECT coalesce(max(doc_id), 0) FROM ak_document;
