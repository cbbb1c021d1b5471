-- Actors: anyone who did work — a DSH root session, a subagent, a team member, a saved AutoClaw
-- agent — with activity, model, counts, success rate and the dispatch mode the contract assigns.
-- col: kind: root_session | subagent | team_member | autoclaw_agent
-- col: display_name: what the actor is, distinct for a manager: `standard agent · shop-api · Restore MySQL access on 176.99.5.35 · 2026-09-03` (root session: preset, workspace folder, its first session's task cut to 48 characters, the day it started; the time too when that is not distinct), `verify-admin · infra-ops` (subagent, team member: role and workspace), the saved agent's name (AutoClaw)
-- col: context: the title of the actor's first session (DSH), NULL for saved agents
-- col: description: what the actor is for: a saved agent's description, a team member's (agentTeam.members), a subagent's (its parent's subagent/catalog)
-- col: origin: the tool whose history the actor comes from: dsh | claude_code | codex | autoclaw
-- col: dispatch_mode: spawn_replica (historical DSH actor) | team_task (team member) | external_handoff (AutoClaw; a Claude Code or Codex actor: its tool's resume command)
-- col: success_rate: successes / finished episodes (partial counts as half)
-- col: top_skills: the five skills used most, {name, uses}, by uses desc, name
-- col: skill_names: every skill name used (sorted)
-- unique: actor_id
-- not_null: actor_id, kind, source, dispatch_mode
-- accepted_values: kind: root_session, subagent, team_member, autoclaw_agent
-- accepted_values: source: harness, autoclaw
-- accepted_values: dispatch_mode: spawn_replica, team_task, external_handoff
-- accepted_values: origin: dsh, claude_code, codex, autoclaw
WITH catalog AS (  -- subagents a session announced (subagent/catalog: [{name, description}]), newest wins
    SELECT session_id AS parent_session_id, json_extract_string(a.value, '$.name') AS name,
           arg_max(json_extract_string(a.value, '$.description'), seq) AS description
    FROM {{ ref('stg_dsh_events') }}, json_each(akw_valid_json(files_json)) AS a
    WHERE kind = 'subagent/catalog' AND json_valid(files_json)
    GROUP BY ALL
),
dsh AS (
    SELECT actor_id, any_value(actor_kind) AS kind, 'harness' AS source, arg_min(actor_name, created_at) AS display_name,
           arg_min(coalesce(title, proj_title), created_at) AS context,
           arg_min(coalesce(member_description, c.description), created_at) AS description,
           arg_min(workspace_id, created_at) AS workspace_id, arg_min(workspace_path, created_at) AS workspace_path,
           min(session_id) AS session_id,
           any_value(coalesce(subagent_parent, lead_session_id)) AS parent_session_id,
           CAST(NULL AS VARCHAR) AS account, CAST(NULL AS VARCHAR) AS agent_id,
           list(DISTINCT session_id ORDER BY session_id) AS session_ids, any_value(origin) AS origin
    FROM {{ ref('stg_dsh_sessions') }} s
    LEFT JOIN catalog c ON s.actor_kind = 'subagent' AND c.parent_session_id = s.subagent_parent
                       AND c.name = s.subagent_name
    GROUP BY actor_id
),
ac AS (
    SELECT 'actor:autoclaw:agent:' || account || ':' || agent_id AS actor_id, 'autoclaw_agent' AS kind,
           'autoclaw' AS source, name AS display_name, CAST(NULL AS VARCHAR) AS context, description,
           CAST(NULL AS VARCHAR) AS workspace_id, CAST(NULL AS VARCHAR) AS workspace_path,
           CAST(NULL AS VARCHAR) AS session_id, CAST(NULL AS VARCHAR) AS parent_session_id,
           account, agent_id, CAST([] AS VARCHAR[]) AS session_ids, 'autoclaw' AS origin
    FROM {{ ref('stg_ac_agents') }}
),
actors AS (SELECT * FROM dsh UNION ALL SELECT * FROM ac),
ep AS (
    SELECT actor_id,
           min(started_at) AS first_activity, max(coalesce(ended_at, started_at)) AS last_activity,
           count(*) AS episodes,
           count(*) FILTER (WHERE outcome = 'success') AS successes,
           count(*) FILTER (WHERE outcome = 'partial') AS partials,
           count(*) FILTER (WHERE outcome IN ('failure', 'cancelled')) AS failures,
           sum(tool_calls) AS tool_calls,
           arg_max(model, started_at) FILTER (WHERE model IS NOT NULL) AS model
    FROM {{ ref('ak_episode') }}
    WHERE actor_id IS NOT NULL
    GROUP BY actor_id
),
main_ws AS (  -- the workspace of most episodes; ties by id, so the choice is deterministic
    SELECT actor_id, workspace_id AS main_workspace_id, workspace_path AS main_workspace_path
    FROM (SELECT actor_id, workspace_id, workspace_path, count(*) AS n FROM {{ ref('ak_episode') }}
          WHERE actor_id IS NOT NULL GROUP BY ALL)
    QUALIFY row_number() OVER (PARTITION BY actor_id ORDER BY n DESC, workspace_id NULLS LAST, workspace_path) = 1
),
skills AS (
    SELECT actor_id, list_sort(list({'rank': -uses, 'name': skill_name, 'uses': uses}))[1:5] AS ranked,
           list_sort(list(skill_name)) AS skill_names
    FROM (SELECT actor_id, skill_name, count(*) AS uses FROM {{ ref('ak_skill_use') }}
          WHERE actor_id IS NOT NULL GROUP BY ALL)
    GROUP BY actor_id
),
part AS (  -- AutoClaw agents also work as participants of other agents' runs
    SELECT 'actor:autoclaw:agent:' || account || ':' || agent_id AS actor_id, count(*) AS participations,
           count(*) FILTER (WHERE outcome IN ('completed', 'success')) AS participations_ok
    FROM {{ ref('stg_ac_participations') }} GROUP BY ALL
),
named AS (  -- a root session is one run of a preset: what it did and when tell sixteen `standard agent · astropy` apart
    SELECT a.actor_id,
           CASE WHEN a.kind = 'root_session'
                THEN concat_ws(' · ', a.display_name, akw_title_cut(a.context, 48),
                               strftime(ep.first_activity AT TIME ZONE 'UTC', '%Y-%m-%d'))
                ELSE a.display_name END AS day_name,
           strftime(ep.first_activity AT TIME ZONE 'UTC', ' %H:%M') AS at_time
    FROM actors a
    LEFT JOIN ep USING (actor_id)
),
distinct_names AS (
    SELECT actor_id,
           CASE WHEN count(*) OVER (PARTITION BY day_name) > 1 AND at_time IS NOT NULL
                     AND actor_id LIKE 'actor:harness:root:%'
                THEN day_name || at_time ELSE day_name END AS display_name
    FROM named
)
SELECT a.actor_id, a.kind, a.source, n.display_name, a.context, a.description,
       coalesce(a.workspace_id, w.main_workspace_id) AS workspace_id,
       coalesce(a.workspace_path, w.main_workspace_path) AS workspace_path,
       a.session_id, a.parent_session_id, a.account, a.agent_id, a.session_ids,
       ep.first_activity, ep.last_activity, ep.model,
       coalesce(ep.episodes, 0) AS episodes, coalesce(ep.successes, 0) AS successes,
       coalesce(ep.partials, 0) AS partials, coalesce(ep.failures, 0) AS failures,
       coalesce(ep.tool_calls, 0) AS tool_calls,
       coalesce(part.participations, 0) AS participations,
       CASE WHEN coalesce(ep.successes, 0) + coalesce(ep.partials, 0) + coalesce(ep.failures, 0) = 0 THEN NULL
            ELSE round((ep.successes + 0.5 * ep.partials) / (ep.successes + ep.partials + ep.failures), 4)
       END AS success_rate,
       CASE WHEN a.kind = 'team_member' THEN 'team_task'
            WHEN a.kind = 'autoclaw_agent' OR a.origin IN ('claude_code', 'codex') THEN 'external_handoff'
            ELSE 'spawn_replica' END AS dispatch_mode,
       coalesce([{'name': r.name, 'uses': r.uses} FOR r IN sk.ranked], []) AS top_skills,
       coalesce(sk.skill_names, []) AS skill_names, a.origin
FROM actors a
JOIN distinct_names n USING (actor_id)
LEFT JOIN ep USING (actor_id)
LEFT JOIN main_ws w USING (actor_id)
LEFT JOIN part USING (actor_id)
LEFT JOIN skills sk USING (actor_id)
ORDER BY a.actor_id
