-- Semantic lane, step 1c: the passages the build cut ($path, Parquet: doc_id, part, pos, unit_text,
-- text_md5) join the head units in the episodes lane.
INSERT INTO _vec_unit
SELECT doc_id, 0::UTINYINT, part::SMALLINT, pos, unit_text, text_md5 FROM read_parquet($path);
