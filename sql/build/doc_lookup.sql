-- Point lookups by doc_id at search time (fusion and item details fetch a few hundred rows):
-- an ART index turns the `doc_id IN (…)` scans of ak_document into index scans.
CREATE UNIQUE INDEX IF NOT EXISTS ak_document_doc_id ON ak_document (doc_id);
