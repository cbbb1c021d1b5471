-- Which writer of the team lake each session, workspace, AutoClaw account and skill came from (ADR 0013):
-- the seam where access control maps principals to writers (ak_acl_writer, `access.principals.<email>.writers`).
-- Empty with lake.backend=local: every row of a local build is this machine's.
-- col: writer_id: lake.writer_id of the machine that pushed the row
-- col: kind: session | workspace | account | skill | skill_row (skill_id|path of one skills row)
-- col: id: session_id, workspace_id, account or skill_id as the other marts name it
-- unique: writer_id, kind, id
-- not_null: writer_id, kind, id
-- accepted_values: kind: session, workspace, account, skill, skill_row
WITH scope AS (
    SELECT writer_id, kind, id FROM {{ ref('stg_writer_scope') }}
)
SELECT writer_id, kind, id
FROM scope
ORDER BY writer_id, kind, id
