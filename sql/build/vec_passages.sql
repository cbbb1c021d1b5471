-- Semantic lane, step 1c: the passages the build cut ($path, Parquet: doc_id, lane_no, part, pos, unit_text,
-- text_md5) join the head units of their lane (episodes, skills).
INSERT INTO _vec_unit
SELECT doc_id, lane_no::UTINYINT, part::SMALLINT, pos, unit_text, text_md5 FROM read_parquet($path);
