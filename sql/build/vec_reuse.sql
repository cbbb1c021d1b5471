-- Semantic lane, step 2 (only when the previous generation, attached read-only as `prev`, was
-- embedded by the same model key): the vectors of unit texts it already embedded, by text md5.
-- A vector is a function of its text alone (warehouse/core/embed.py), so reuse equals re-embedding.
INSERT INTO _vec_known
SELECT text_md5, any_value(vec)
FROM prev.akw_vec
WHERE text_md5 IN (SELECT text_md5 FROM _vec_unit)
GROUP BY text_md5;
