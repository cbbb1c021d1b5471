-- Artifacts an episode produced: presented deliverables and workspace changes (DSH), files written
-- by tool calls (both sources). Provenance = the event that records it.
-- col: change: presented | added | modified | deleted | written
-- unique: artifact_id
-- not_null: artifact_id, episode_id, path, kind
-- accepted_values: kind: deliverable, file
WITH ac_write_calls AS (  -- AutoClaw calls of a writing tool, their input parsed once (NULL unless JSON)
    SELECT session_seq, committed_at, account, run_id, session_id, akw_valid_json(tool_input) AS input
    FROM {{ ref('stg_ac_entries') }}
    WHERE entry_type = 'tool_call' AND run_id IS NOT NULL
      AND lower(tool_name) IN ('write', 'edit', 'write_file', 'edit_file', 'apply_patch', 'str_replace')
),
ac_write_paths AS (
    SELECT session_id, session_seq, committed_at, account, run_id,
           coalesce(json_extract_string(input, '$.file_path'), json_extract_string(input, '$.path')) AS path
    FROM ac_write_calls
),
dsh AS (
    SELECT a.session_id, a.seq, a.time, a.path, a.change, a.description, e.episode_id
    FROM {{ ref('stg_dsh_artifacts') }} a
    JOIN {{ ref('int_dsh_episode_events') }} e USING (session_id, seq)
),
writes AS (
    SELECT session_id, seq, time, file_path AS path, 'written' AS change, CAST(NULL AS VARCHAR) AS description, episode_id
    FROM {{ ref('int_dsh_episode_events') }}
    WHERE role = 'tool_call' AND tool_name IN ('write', 'edit', 'multi_edit') AND file_path IS NOT NULL
    UNION ALL
    SELECT session_id, session_seq, committed_at, path, 'written', NULL, 'episode:autoclaw:' || account || ':' || run_id
    FROM ac_write_paths
    WHERE path IS NOT NULL
),
allx AS (SELECT * FROM dsh UNION ALL SELECT * FROM writes)
SELECT 'artifact:' || x.session_id || ':' || x.seq || ':' || md5(x.path)[:8] AS artifact_id,
       x.episode_id, ep.actor_id, x.session_id, x.seq, x.time, x.path, x.change, x.description,
       CASE WHEN x.change = 'presented' THEN 'deliverable' ELSE 'file' END AS kind
FROM allx x JOIN {{ ref('ak_episode') }} ep USING (episode_id)
QUALIFY row_number() OVER (PARTITION BY artifact_id ORDER BY x.change) = 1
ORDER BY artifact_id
