-- One row per AutoClaw work run (a run is an episode). Runs of deleted sessions are left out.
-- The owner is the saved agent named by the session's capability_composition_json, resolved by
-- the first rule that links (SOURCES.md §2 lists the variants real sessions use):
--   1. id: presetRef (or its last URI segment) is an agent_id of the account;
--   2. name: the last segment of presetRef (`preset://autoclaw/<name>`, URL-decoded) is an agent's name;
--   3. label: the composition's label is an agent's name;
--   4. participation: an agent took part in the run (collaboration_run_agent_participations): the
--      earliest participation, ties by participation_id.
-- Names compare trimmed and case-insensitive. Two agents of one account with the same name: the
-- most recently updated one owns (ties by agent_id), so the choice is deterministic.
-- col: owner_rule: which rule linked the owner: id | name | label | participation; NULL = no saved agent
WITH agents AS (
    SELECT account, agent_id, lower(trim(name)) AS name_key, updated_at FROM {{ ref('stg_ac_agents') }}
),
agent_names AS (  -- one agent per (account, name): the most recently updated, then the smallest id
    SELECT account, name_key, agent_id FROM agents WHERE name_key IS NOT NULL AND name_key <> ''
    QUALIFY row_number() OVER (PARTITION BY account, name_key ORDER BY updated_at DESC NULLS LAST, agent_id) = 1
),
refs AS (
    SELECT account, session_id, preset_ref,
           trim(url_decode(regexp_extract(rtrim(preset_ref, '/'), '[^/]*$'))) AS ref_tail,
           lower(trim(preset_label)) AS label_key
    FROM {{ ref('stg_ac_sessions') }}
),
by_session AS (  -- rules 1-3: what the session's composition names
    SELECT r.account, r.session_id,
           coalesce(i.agent_id, t.agent_id, n.agent_id, l.agent_id) AS agent_id,
           CASE WHEN coalesce(i.agent_id, t.agent_id) IS NOT NULL THEN 'id'
                WHEN n.agent_id IS NOT NULL THEN 'name'
                WHEN l.agent_id IS NOT NULL THEN 'label' END AS owner_rule
    FROM refs r
    LEFT JOIN agents i ON i.account = r.account AND i.agent_id = r.preset_ref
    LEFT JOIN agents t ON t.account = r.account AND t.agent_id = r.ref_tail
    LEFT JOIN agent_names n ON n.account = r.account AND n.name_key = lower(r.ref_tail)
    LEFT JOIN agent_names l ON l.account = r.account AND l.name_key = r.label_key
),
by_run AS (  -- rule 4: the saved agent of the run's earliest participation
    SELECT p.account, p.run_id, p.agent_id
    FROM {{ ref('stg_ac_participations') }} p
    JOIN agents a ON a.account = p.account AND a.agent_id = p.agent_id
    QUALIFY row_number() OVER (PARTITION BY p.account, p.run_id ORDER BY p.created_at NULLS LAST, p.participation_id) = 1
),
e AS (
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
       s.workspace AS workspace_path, coalesce(o.agent_id, pr.agent_id) AS agent_id,
       'actor:autoclaw:agent:' || r.account || ':' || coalesce(o.agent_id, pr.agent_id) AS actor_id,
       CASE WHEN o.agent_id IS NOT NULL THEN o.owner_rule WHEN pr.agent_id IS NOT NULL THEN 'participation' END
           AS owner_rule
FROM {{ ref('stg_ac_runs') }} r
JOIN {{ ref('stg_ac_sessions') }} s ON s.account = r.account AND s.session_id = r.session_id
LEFT JOIN e ON e.account = r.account AND e.run_id = r.run_id
LEFT JOIN by_session o ON o.account = r.account AND o.session_id = r.session_id
LEFT JOIN by_run pr ON pr.account = r.account AND pr.run_id = r.run_id
WHERE NOT s.is_deleted
