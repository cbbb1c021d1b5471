-- Semantic lane, step 5: one vector per unit (a document's head, part 0, and its passages), sorted by
-- (lane_no, doc_id) so a lane's scan reads only its own row groups; the model key says what the next
-- build may reuse.
CREATE TABLE akw_vec AS
SELECT u.lane_no, u.doc_id, u.part, u.pos, u.text_md5, k.vec
FROM _vec_unit AS u JOIN _vec_known AS k USING (text_md5)
ORDER BY u.lane_no, u.doc_id, u.part;

CREATE TABLE akw_vec_build AS SELECT $key AS key, $model AS model, 512 AS dims;

DROP TABLE _vec_unit;
DROP TABLE _vec_known;
