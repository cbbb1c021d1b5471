-- Dispatch plans recorded by `knowledge_dispatch` commit: who asked, to whom, when, why, with which
-- evidence. Built at every build from the outbox files under AKW_HOME/outbox (the warehouse's own
-- records, not derived data: a rebuild keeps them); empty until the first commit.
-- col: status: recorded_plan (the plan is recorded; nothing was executed or sent)
-- col: dispatch_mode: team_task | spawn_replica | external_handoff
-- col: choice: how the target was chosen: named_skill | implied_skill | search | explicit
-- col: why_json: the reasons, as a JSON list of strings
-- col: evidence_json: {episodes, code, skills}: ids of the evidence the plan cites
-- col: task_text_hash: sha256 of the task text (the text itself is in the outbox package)
-- col: package_file: the outbox file holding the knowledge.handoff/v1 package
-- unique: assignment_id
-- unique: dispatch_id
-- not_null: assignment_id, dispatch_id, actor_id, status, dispatch_mode, created_at
-- accepted_values: status: recorded_plan
-- accepted_values: dispatch_mode: team_task, spawn_replica, external_handoff
WITH r AS (SELECT line::JSON AS j FROM _akw_assignments_raw)
SELECT j->>'assignment_id' AS assignment_id,
       j->>'dispatch_id' AS dispatch_id,
       j->>'actor_id' AS actor_id,
       j->>'actor_name' AS actor_name,
       j->>'actor_kind' AS actor_kind,
       j->>'requested_by' AS requested_by,
       j->>'task_title' AS task_title,
       j->>'task_text_hash' AS task_text_hash,
       j->>'status' AS status,
       j->>'dispatch_mode' AS dispatch_mode,
       j->>'choice' AS choice,
       (j->'why')::VARCHAR AS why_json,
       (j->'evidence')::VARCHAR AS evidence_json,
       TRY_CAST(j->>'deadline' AS TIMESTAMPTZ) AS deadline,
       TRY_CAST(j->>'created_at' AS TIMESTAMPTZ) AS created_at,
       j->>'request_hash' AS request_hash,
       j->>'package_file' AS package_file
FROM r
ORDER BY created_at, assignment_id
