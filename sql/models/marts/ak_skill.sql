-- Skills from every root with front matter, version/hash, resources and usage counts.
-- The body is searchable text and lives in ak_document (lane skills).
-- col: status: live | removed (AutoClaw tombstones; removed skills are never shown as live)
-- col: uses: number of recorded uses (ak_skill_use) of this skill
-- col: used_by: who used it, newest first: up to 5 {actor_id, episode_id (their latest), uses}
-- unique: skill_id
-- not_null: skill_id, name, root_kind, status
-- accepted_values: status: live, removed
-- accepted_values: root_kind: dsh_home, workspace_dsh, workspace_agents, extra, claude_home, codex_home, autoclaw
SELECT s.skill_id, s.name, s.root_kind, s.root_path, s.workspace_id, s.account, s.path, s.rel_dir,
       s.description, s.when_to_use, s.metadata_json, s.frontmatter_json, s.disable_model_invocation,
       s.user_invocable, s.license, s.allowed_tools, s.content_hash, s.size, s.status, s.removed_at, s.version,
       s.ledger_sha256, s.ledger_matches, s.deployed_at, s.bundles, s.referenced_missing,
       coalesce(r.resources, 0) AS resources, coalesce(r.binary_resources, 0) AS binary_resources,
       coalesce(u.uses, 0) AS uses, coalesce(u.actors, 0) AS actors, u.last_used_at,
       coalesce(u.used_by, []) AS used_by
FROM {{ ref('stg_skills') }} s
LEFT JOIN (SELECT skill_id, count(*) AS resources, count(*) FILTER (WHERE is_binary) AS binary_resources
           FROM {{ ref('stg_skill_resources') }} GROUP BY ALL) r USING (skill_id)
LEFT JOIN (SELECT skill_id, CAST(sum(uses) AS BIGINT) AS uses, count(actor_id) AS actors, max(last_time) AS last_used_at,
                  (list({'actor_id': actor_id, 'episode_id': episode_id, 'uses': uses} ORDER BY last_time DESC, actor_id)
                       FILTER (WHERE actor_id IS NOT NULL))[1:5] AS used_by
           FROM (SELECT skill_id, actor_id, arg_max(episode_id, time) AS episode_id, count(*) AS uses,
                        max(time) AS last_time
                 FROM {{ ref('ak_skill_use') }} GROUP BY skill_id, actor_id)
           GROUP BY skill_id) u USING (skill_id)
ORDER BY s.skill_id
