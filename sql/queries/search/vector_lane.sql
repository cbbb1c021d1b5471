-- One lane of vector_search.sql: {lane_no}, {k} and {filter} = empty, or
-- `AND v.doc_id IN (SELECT d.doc_id FROM ak_document AS d WHERE <the lane's request filters>)`, the same
-- predicate as the lexical lane (a filter cannot leak, KC-10).
-- A document's units are its head and (episodes lane) its passages: its similarity is its best unit's,
-- and pos that unit's offset (the snippet shows the passage that matched, 0 for the head; of two equally
-- similar units the first, as the in-memory scan picks it: search/vector_matrix.py).
-- akw_vec is sorted by (lane_no, doc_id): the lane's scan reads its own row groups only.
SELECT * FROM (
    SELECT lane_no, doc_id, max(sim) AS sim, arg_max(pos, (sim, -pos)) AS pos
    FROM (SELECT v.lane_no, v.doc_id, v.pos, array_inner_product(v.vec, q.qv)::DOUBLE AS sim
          FROM akw_vec AS v, q
          WHERE v.lane_no = {lane_no} {filter})
    GROUP BY lane_no, doc_id
    ORDER BY sim DESC, doc_id
    LIMIT {k}
)
