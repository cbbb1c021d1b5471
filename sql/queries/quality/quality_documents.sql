-- Data-quality frame (warehouse/quality): the lane invariants of ak_document (episode-side documents carry
-- no path; code chunks carry a path and a start line ≥ 1) and its id/enum columns.
WITH documents AS (SELECT * FROM ak_document),
checked AS (
    SELECT doc_key AS key, doc_id, doc_key, lane, kind, source, outcome,
           CASE lane WHEN 'code' THEN path IS NOT NULL AND path <> '' AND coalesce(start_line, 0) >= 1
                     ELSE path IS NULL END AS lane_shape_ok
    FROM documents
)
SELECT * FROM checked ORDER BY doc_id
