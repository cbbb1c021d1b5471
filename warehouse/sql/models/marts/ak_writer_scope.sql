-- Which writer of the team lake each session and workspace came from (ADR 0013): the seam where
-- access control maps principals to writers (ACL rows keyed by writer_id join here). Empty with
-- lake.backend=local: every row of a local build is this machine's.
-- col: writer_id: lake.writer_id of the machine that pushed the row
-- col: kind: session | workspace
-- col: id: session_id or workspace_id as the other marts name it
-- unique: writer_id, kind, id
-- not_null: writer_id, kind, id
-- accepted_values: kind: session, workspace
WITH scope AS (
    SELECT writer_id, kind, id FROM {{ lake('meta', 'writer_scope') }}
)
SELECT writer_id, kind, id
FROM scope
ORDER BY writer_id, kind, id
