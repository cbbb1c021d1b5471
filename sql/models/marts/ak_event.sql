-- Normalized events of both sources with a reference to the source position; no raw text
-- (searchable text is in ak_document). Injected harness messages are kept as role `injected`.
-- Harness context before a session's first human request is an event of no episode (episode_id NULL).
-- col: event_id: ev:<session_id>:<seq> (AutoClaw: ev:<account>:<session_id>:<session_seq>: its session ids are an account's own, and a copied account folder holds the same ones)
-- col: is_duplicate: AutoClaw repeats (per-call request copies, answer==assistant, repeated reasoning)
-- unique: event_id
-- not_null: event_id, source, session_id, role, is_duplicate
-- accepted_values: source: harness, autoclaw
-- accepted_values: role: human, injected, assistant, reasoning, tool_call, tool_result, artifact, system, other
SELECT 'ev:' || e.session_id || ':' || e.seq AS event_id, 'harness' AS source, e.session_id, e.seq,
       CAST(NULL AS VARCHAR) AS entry_id, CAST(NULL AS VARCHAR) AS account, x.episode_id, e.time, e.kind, e.role,
       e.source_kind, e.tool_name, coalesce(e.file_path, e.command) AS target, e.skill_name, e.is_error,
       false AS is_duplicate, length(e.text) AS text_chars
FROM {{ ref('stg_dsh_events') }} e
LEFT JOIN (SELECT session_id, seq, episode_id FROM {{ ref('int_dsh_episode_events') }}) x USING (session_id, seq)
UNION ALL
SELECT 'ev:' || e.account || ':' || e.session_id || ':' || e.session_seq, 'autoclaw', e.session_id, e.session_seq, e.entry_id, e.account,
       'episode:autoclaw:' || e.account || ':' || e.run_id, e.committed_at, e.entry_type,
       CASE e.entry_type WHEN 'request' THEN 'human' WHEN 'tool_call' THEN 'tool_call'
                         WHEN 'tool_result' THEN 'tool_result' WHEN 'reasoning' THEN 'reasoning' ELSE 'assistant' END,
       NULL, e.tool_name, NULL, NULL, (e.tool_error IS NOT NULL OR e.tool_status IN ('failed', 'error')), e.is_duplicate,
       length(e.text)
FROM {{ ref('stg_ac_entries') }} e
JOIN {{ ref('stg_ac_sessions') }} s ON s.account = e.account AND s.session_id = e.session_id AND NOT s.is_deleted
ORDER BY source, session_id, seq
