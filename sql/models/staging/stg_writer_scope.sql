-- Team lake (ADR 0013): which writer (`lake.writer_id`) each session, workspace, AutoClaw account and
-- skill of a snapshot came from, as the snapshot export read it off the DuckLake rows' writer_id.
-- Empty in a local build (every row is this machine's: docs/access.md).
-- col: kind: session | workspace | account | skill | skill_row (skill_id|path of one skills row)
-- col: id: the session_id, workspace_id, account or skill_id as the bronze rows name it
WITH scope AS (
    SELECT writer_id, kind, id FROM {{ lake('meta', 'writer_scope') }}
),
named AS (
    SELECT DISTINCT writer_id, kind, id FROM scope
    WHERE writer_id IS NOT NULL AND kind IS NOT NULL AND id IS NOT NULL
)
SELECT writer_id, kind, id FROM named
