-- Semantic lane, step 3: the distinct unit texts that still need a vector, in md5 order, numbered from 0
-- (the build reads them in batches by `n` while the model embeds: embeddings.py).
CREATE OR REPLACE TABLE _vec_todo AS
SELECT (row_number() OVER (ORDER BY text_md5) - 1)::BIGINT AS n, text_md5, unit_text
FROM (SELECT text_md5, any_value(unit_text) AS unit_text
      FROM _vec_unit
      WHERE text_md5 NOT IN (SELECT text_md5 FROM _vec_known)
      GROUP BY text_md5)
ORDER BY n;
SELECT count(*) FROM _vec_todo;
