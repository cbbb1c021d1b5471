-- Each time an actor used a skill in an episode: DSH `skill` tool calls and `/name` messages (Claude Code's
-- `Skill` tool and custom slash commands the same), a Codex agent reading a skill's SKILL.md, AutoClaw
-- skill-loading tool calls. A name resolves to the skill of the episode's workspace first, then the
-- home of the tool that ran it (DSH home, ~/.claude, ~/.codex), then AutoClaw, then any root (skill_id
-- NULL if none exists).
-- col: via: tool | slash | read | autoclaw_tool
-- unique: skill_use_id
-- not_null: skill_use_id, skill_name, episode_id, via, outcome
-- accepted_values: via: tool, slash, read, autoclaw_tool
-- accepted_values: outcome: success, partial, failure, cancelled, running, unknown
WITH uses AS (
    SELECT episode_id, session_id, seq, CAST(NULL AS VARCHAR) AS entry_id, time, skill_name,
           coalesce(skill_via, 'tool') AS via
    FROM {{ ref('int_dsh_episode_events') }} WHERE skill_name IS NOT NULL
    UNION ALL
    SELECT 'episode:autoclaw:' || account || ':' || run_id, session_id, session_seq, entry_id, committed_at, skill_name,
           'autoclaw_tool'
    FROM {{ ref('int_ac_skill_calls') }}
),
joined AS (
    SELECT u.*, e.actor_id, e.outcome, e.workspace_id, e.account, e.source, e.origin
    FROM uses u JOIN {{ ref('ak_episode') }} e USING (episode_id)
),
resolved AS (
    SELECT j.*, s.skill_id,
           row_number() OVER (PARTITION BY j.episode_id, j.seq ORDER BY
               CASE WHEN s.workspace_id IS NOT NULL AND s.workspace_id = j.workspace_id THEN 0
                    WHEN s.root_kind = 'dsh_home' AND j.origin = 'dsh' THEN 1
                    WHEN s.root_kind = 'claude_home' AND j.origin = 'claude_code' THEN 1
                    WHEN s.root_kind = 'codex_home' AND j.origin = 'codex' THEN 1
                    WHEN s.root_kind = 'autoclaw' AND s.account = j.account THEN 1
                    WHEN s.root_kind = 'dsh_home' THEN 2 ELSE 3 END,
               s.status = 'removed', s.skill_id) AS pick
    FROM joined j LEFT JOIN {{ ref('stg_skills') }} s ON s.name = j.skill_name
)
SELECT 'use:' || episode_id || ':' || seq AS skill_use_id, skill_id, skill_name, actor_id, episode_id, session_id, seq,
       entry_id, via, time, outcome
FROM resolved WHERE pick = 1
ORDER BY skill_use_id
