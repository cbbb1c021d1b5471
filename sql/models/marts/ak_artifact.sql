-- Artifacts an episode produced: presented deliverables and workspace changes (DSH), files written
-- by tool calls (both sources). Provenance = the event that records it.
-- col: change: presented | added | modified | deleted | written
-- unique: artifact_id
-- not_null: artifact_id, episode_id, path, kind
-- accepted_values: kind: deliverable, file
WITH dsh AS (
    SELECT a.session_id, a.seq, a.time, a.path, a.change, a.description, e.episode_id
    FROM {{ ref('stg_dsh_artifacts') }} a
    JOIN {{ ref('int_dsh_episode_events') }} e USING (session_id, seq)
),
writes AS (
    SELECT session_id, seq, time, file_path AS path, 'written' AS change, CAST(NULL AS VARCHAR) AS description, episode_id
    FROM {{ ref('int_dsh_episode_events') }}
    WHERE role = 'tool_call' AND tool_name IN ('write', 'edit', 'multi_edit') AND file_path IS NOT NULL
    UNION ALL
    SELECT session_id, session_seq, committed_at,
           coalesce(json_extract_string(akw_valid_json(tool_input), '$.file_path'), json_extract_string(akw_valid_json(tool_input), '$.path')),
           'written', NULL, 'episode:autoclaw:' || account || ':' || run_id
    FROM {{ ref('stg_ac_entries') }}
    WHERE entry_type = 'tool_call' AND run_id IS NOT NULL
      AND coalesce(json_extract_string(akw_valid_json(tool_input), '$.file_path'), json_extract_string(akw_valid_json(tool_input), '$.path')) IS NOT NULL
      AND lower(tool_name) IN ('write', 'edit', 'write_file', 'edit_file', 'apply_patch', 'str_replace')
),
allx AS (SELECT * FROM dsh UNION ALL SELECT * FROM writes)
SELECT 'artifact:' || x.session_id || ':' || x.seq || ':' || md5(x.path)[:8] AS artifact_id,
       x.episode_id, ep.actor_id, x.session_id, x.seq, x.time, x.path, x.change, x.description,
       CASE WHEN x.change = 'presented' THEN 'deliverable' ELSE 'file' END AS kind
FROM allx x JOIN {{ ref('ak_episode') }} ep USING (episode_id)
QUALIFY row_number() OVER (PARTITION BY artifact_id ORDER BY x.change) = 1
ORDER BY artifact_id
