-- Episodes: units of work with a goal, actions, result, outcome and evidence (spec FR-4).
-- DSH: one per human turn; AutoClaw: one per work run. Raw text (goal, answer) lives in
-- ak_document; this table keeps references, tags, outcomes and counts.
-- col: episode_id: episode:harness:<session>:<turn> | episode:autoclaw:<account>:<run_id>
-- col: outcome: success | partial | failure | cancelled | running | unknown
-- col: evidence_ref: where to check the claim: <session_id>#seq=<first>-<last> or autoclaw:<account>/<run_id>
-- col: entry_ids: AutoClaw neutral_session_entries ids of the run (duplicates excluded)
-- col: owner_rule: how actor_id was linked: session (DSH: the session's own actor) | id | name | label | participation (AutoClaw: presetRef = agent id, presetRef URI = agent name, label = agent name, the run's participation; int_ac_episodes) | NULL (no saved agent)
-- col: origin: the tool that wrote it: dsh | claude_code | codex (source harness), autoclaw
-- col: actor_id: ak_actor.actor_id of who did the episode (NULL: an AutoClaw run no saved agent owns)
-- unique: episode_id
-- not_null: episode_id, source, session_id, outcome, evidence_ref
-- accepted_values: source: harness, autoclaw
-- accepted_values: outcome: success, partial, failure, cancelled, running, unknown
-- accepted_values: owner_rule: session, id, name, label, participation
-- accepted_values: origin: dsh, claude_code, codex, autoclaw
WITH ws AS (SELECT workspace_id, path FROM {{ ref('stg_dsh_workspaces') }})
SELECT episode_id, 'harness' AS source, actor_id, session_id, CAST(NULL AS VARCHAR) AS account,
       CAST(NULL AS VARCHAR) AS run_id, workspace_id, workspace_path,
       left(title, 200) AS title, outcome, started_at, ended_at,
       date_diff('millisecond', started_at, ended_at) / 1000.0 AS duration_s,
       seq_first, seq_last, CAST([] AS VARCHAR[]) AS entry_ids, events, tool_calls, tool_errors, compactions,
       deliverables, coalesce(skills, []) AS skills, coalesce(tools, []) AS tools,
       coalesce(delegated_to, []) AS participants, input_tokens, output_tokens, model,
       session_id || '#seq=' || seq_first || '-' || seq_last AS evidence_ref, 'session' AS owner_rule, origin
FROM {{ ref('int_dsh_episodes') }}
UNION ALL
SELECT a.episode_id, 'autoclaw', a.actor_id, a.session_id, a.account, a.run_id, ws.workspace_id, a.workspace_path,
       left(a.title, 200), a.outcome, a.started_at, a.ended_at,
       date_diff('millisecond', a.started_at, a.ended_at) / 1000.0,
       a.seq_first, a.seq_last, a.entry_ids, a.events, a.tool_calls, a.tool_errors, a.compactions,
       0, coalesce(u.skills, []), a.tools, coalesce(p.participants, []), a.input_tokens, a.output_tokens, a.model,
       'autoclaw:' || a.account || '/' || a.run_id, a.owner_rule, 'autoclaw'
FROM {{ ref('int_ac_episodes') }} a
LEFT JOIN ws ON ws.path = a.workspace_path
LEFT JOIN (SELECT account, run_id, list(DISTINCT name ORDER BY name) AS participants
           FROM {{ ref('stg_ac_participations') }} GROUP BY ALL) p
  ON p.account = a.account AND p.run_id = a.run_id
LEFT JOIN (SELECT account, run_id, list(DISTINCT skill_name ORDER BY skill_name) AS skills
           FROM {{ ref('int_ac_skill_calls') }} GROUP BY ALL) u
  ON u.account = a.account AND u.run_id = a.run_id
ORDER BY episode_id
