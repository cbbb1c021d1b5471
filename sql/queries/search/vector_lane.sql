-- One lane of vector_search.sql: {lane_no}, {k} and {filter} = empty, or
-- `AND v.doc_id IN (SELECT d.doc_id FROM ak_document AS d WHERE <the lane's request filters>)`, the same
-- predicate as the lexical lane (a filter cannot leak, KC-10).
-- akw_vec is sorted by (lane_no, doc_id): the lane's scan reads its own row groups only.
SELECT * FROM (
    SELECT v.lane_no, v.doc_id, array_inner_product(v.vec, q.qv)::DOUBLE AS sim
    FROM akw_vec AS v, q
    WHERE v.lane_no = {lane_no} {filter}
    ORDER BY sim DESC, v.doc_id
    LIMIT {k}
)
