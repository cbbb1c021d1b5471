-- Dispatch plans recorded by `knowledge_dispatch` commit (empty until the first commit).
-- unique: assignment_id
-- not_null: assignment_id
SELECT CAST(NULL AS VARCHAR) AS assignment_id,
       CAST(NULL AS VARCHAR) AS dispatch_id,
       CAST(NULL AS VARCHAR) AS actor_id,
       CAST(NULL AS VARCHAR) AS requested_by,
       CAST(NULL AS VARCHAR) AS task_text_hash,
       CAST(NULL AS VARCHAR) AS status,
       CAST(NULL AS VARCHAR) AS dispatch_mode,
       CAST(NULL AS VARCHAR) AS evidence_json,
       CAST(NULL AS TIMESTAMPTZ) AS created_at
WHERE false
