-- Semantic lane, step 3: the distinct unit texts that still need a vector, in md5 order.
SELECT text_md5, any_value(unit_text) AS unit_text
FROM _vec_unit
WHERE text_md5 NOT IN (SELECT text_md5 FROM _vec_known)
GROUP BY text_md5
ORDER BY text_md5;
