-- The semantic additions to a search session (semantic.enabled): this search's vector hits and the
-- statement that gives each fused item the best similarity of its group (its `why`: `vec: 0.83`).
CREATE TEMP TABLE _vec (lane VARCHAR, doc_id INTEGER, vec DOUBLE);
PREPARE akw_vec_of AS
SELECT f.lane, f.doc_id, max(v.vec) AS vec
FROM _fused f JOIN _hits h ON h.lane = f.lane AND h.grp = f.grp JOIN _vec v ON v.lane = h.lane AND v.doc_id = h.doc_id
GROUP BY f.lane, f.doc_id;
