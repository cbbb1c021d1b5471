-- Semantic lane, step 4: the new vectors, written by the build as Parquet ($path), exactly as float32.
INSERT INTO _vec_known
SELECT text_md5, vec::FLOAT[512] FROM read_parquet($path);
