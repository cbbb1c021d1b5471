-- Harness sessions: DSH sessions and the sessions of the agent tools that keep the same kind of log
-- (Claude Code, Codex: issue 26), one row per session (the newest file wins if an id appears twice),
-- with the actor it belongs to. Subagent children and team-member sessions are actors of their own.
-- col: origin: which tool wrote the session: dsh | claude_code | codex (the wire `source` stays `harness`)
-- col: actor_id: actor:harness:root:<session> | actor:harness:subagent:<parent>:<name> | actor:harness:team_member:<lead>:<name>
-- col: actor_name: what the actor is, then its workspace folder: `standard agent · shop-api` (a root session: its agent preset; `Claude Code`, `Codex` for theirs), `verify-admin · infra-ops` (a subagent or team member: its role name)
-- col: workspace_name: the workspace folder name (last segment of the workspace path or cwd)
-- unique: session_id
-- not_null: session_id, actor_id
-- accepted_values: actor_kind: root_session, subagent, team_member
-- accepted_values: origin: dsh, claude_code, codex
WITH harness AS (
    SELECT *, 'dsh' AS origin FROM {{ lake('dsh', 'sessions') }}
    UNION ALL BY NAME SELECT * FROM {{ lake('claude_code', 'sessions') }}
    UNION ALL BY NAME SELECT * FROM {{ lake('codex', 'sessions') }}
),
s AS (
    SELECT * FROM harness
    QUALIFY row_number() OVER (PARTITION BY session_id ORDER BY last_time DESC NULLS LAST, rel_path) = 1
),
team AS (  -- members named in a lead's projection: member session -> (lead session, member name)
    -- akw_valid_json: a projection that is not JSON (a torn file, another tool's text) names no team (issue 27)
    SELECT DISTINCT coalesce(nullif(s.team_lead, ''), json_extract_string(akw_valid_json(s.agent_team_json), '$.lead'),
                             s.session_id) AS lead_session_id,
           json_extract_string(m.value, '$.sessionId') AS member_session_id,
           json_extract_string(m.value, '$.name') AS member_name,
           json_extract_string(m.value, '$.description') AS member_description
    FROM s, json_each(json_extract(akw_valid_json(s.agent_team_json), '$.members')) AS m
    WHERE s.agent_team_json IS NOT NULL AND s.agent_team_json NOT IN ('null', '')
)
SELECT s.*,
       t.lead_session_id,
       t.member_name,
       t.member_description,
       CASE
           WHEN s.subagent_parent IS NOT NULL THEN 'subagent'
           WHEN t.member_session_id IS NOT NULL THEN 'team_member'
           ELSE 'root_session'
       END AS actor_kind,
       CASE
           WHEN s.subagent_parent IS NOT NULL
               THEN 'actor:harness:subagent:' || s.subagent_parent || ':' || coalesce(s.subagent_name, s.session_id)
           WHEN t.member_session_id IS NOT NULL
               THEN 'actor:harness:team_member:' || t.lead_session_id || ':' || t.member_name
           ELSE 'actor:harness:root:' || s.session_id
       END AS actor_id,
       akw_path_name(coalesce(s.workspace_path, s.cwd)) AS workspace_name,
       concat_ws(' · ', coalesce(s.subagent_name, t.member_name,
                                 CASE s.origin WHEN 'claude_code' THEN 'Claude Code' WHEN 'codex' THEN 'Codex'
                                      ELSE coalesce(nullif(trim(s.agent_preset), ''), 'standard') || ' agent' END),
                 akw_path_name(coalesce(s.workspace_path, s.cwd))) AS actor_name
FROM s
LEFT JOIN team t ON t.member_session_id = s.session_id
QUALIFY row_number() OVER (PARTITION BY s.session_id ORDER BY t.lead_session_id NULLS LAST) = 1
