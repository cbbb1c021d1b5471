-- Vectors of the semantic lane a forget removes: $1 document keys (akw_vec exists only when semantic is on).
SELECT count(*) FROM akw_vec v JOIN ak_document d USING (doc_id) WHERE list_contains($1, d.doc_key)
