-- The principal's documents as one bitstring session variable ({name}; bit n set = doc_id n visible), made
-- once per lane cursor beside its temp table ({allow}) by warehouse/search/access.py. The lane queries test
-- `get_bit(getvariable(...), doc_id)`: a constant probe per aggregated row, no hash table of the allowed
-- set built per query (the semi-join cost ~1 ms per lane at 100k documents). {max}: max(doc_id) of the
-- generation (access_max_doc.sql), a literal integer as bitstring_agg requires. No documents: NULL, and
-- every probe is NULL, so nothing passes (fail closed).
SET VARIABLE {name} = (SELECT bitstring_agg(doc_id::INTEGER, 0, {max}) FROM {allow});
