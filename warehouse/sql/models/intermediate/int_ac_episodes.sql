-- One row per AutoClaw work run (a run is an episode), owned by the saved agent of its session
-- (capability_composition_json.presetRef). Runs of deleted sessions are left out.
WITH e AS (
    SELECT account, session_id, run_id,
           min(session_seq) AS seq_first, max(session_seq) AS seq_last,
           min(session_seq) FILTER (WHERE entry_type = 'request') AS request_seq,
           count(*) FILTER (WHERE NOT is_duplicate) AS entries,
           count(*) FILTER (WHERE entry_type = 'tool_call') AS tool_calls,
           count(*) FILTER (WHERE entry_type = 'tool_result' AND (tool_error IS NOT NULL OR tool_status IN ('failed', 'error')))
               AS tool_errors,
           count(*) FILTER (WHERE entry_type = 'compaction') AS compactions,
           list(DISTINCT tool_name ORDER BY tool_name) FILTER (WHERE tool_name IS NOT NULL) AS tools,
           list(entry_id ORDER BY session_seq) FILTER (WHERE NOT is_duplicate) AS entry_ids
    FROM {{ ref('stg_ac_entries') }}
    WHERE run_id IS NOT NULL
    GROUP BY ALL
)
SELECT 'episode:autoclaw:' || r.account || ':' || r.run_id AS episode_id,
       r.account, r.run_id, r.session_id,
       coalesce(e.request_seq, e.seq_first, 0) AS seq_first,
       coalesce(e.seq_last, 0) AS seq_last,
       r.started_at, r.finished_at AS ended_at,
       coalesce(e.entries, 0) AS events,
       r.text AS goal_text, r.response AS final_answer,
       coalesce(s.title, left(r.text, 120)) AS title,
       coalesce(e.tool_calls, 0) AS tool_calls, coalesce(e.tool_errors, 0) AS tool_errors,
       coalesce(e.compactions, 0) AS compactions, coalesce(e.tools, []) AS tools, coalesce(e.entry_ids, []) AS entry_ids,
       r.input_tokens, r.output_tokens, r.model, r.status,
       CASE r.status
           WHEN 'failed' THEN 'failure'
           WHEN 'cancelled' THEN 'cancelled'
           WHEN 'running' THEN 'running'
           ELSE akw_text_outcome(r.response)
       END AS outcome,
       s.workspace AS workspace_path, s.preset_ref AS agent_id,
       CASE WHEN s.preset_ref IS NOT NULL THEN 'actor:autoclaw:agent:' || r.account || ':' || s.preset_ref END AS actor_id
FROM {{ ref('stg_ac_runs') }} r
JOIN {{ ref('stg_ac_sessions') }} s ON s.account = r.account AND s.session_id = r.session_id
LEFT JOIN e ON e.account = r.account AND e.run_id = r.run_id
WHERE NOT s.is_deleted
