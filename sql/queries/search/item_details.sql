-- Everything a response item shows, for the returned documents only ({doc_ids} = literal ints).
-- item_id is the id the response gives the item, the key of its mart row (docs/search.md "Ids"):
-- an episodes-lane event -> its episode (ak_episode.episode_id), a memory -> ak_memory.memory_key,
-- a chunk or skill -> its doc_key (ak_document.doc_key, ak_skill.skill_id); event_id names the
-- matched event (ak_event.event_id). The actor's name comes with the actor rows (actors.sql, which
-- scores every actor of the fused episodes): a join to ak_actor here made the plan much hungrier.
SELECT d.doc_id, d.doc_key,
       CASE WHEN d.lane = 'episodes' AND d.episode_id IS NOT NULL THEN d.episode_id
            WHEN d.kind = 'memory' THEN 'memory:autoclaw:' || substr(d.doc_key, 5)
            ELSE d.doc_key END AS item_id,
       CASE WHEN d.lane = 'episodes' AND d.kind <> 'memory'
            THEN 'ev:' || CASE WHEN d.source = 'autoclaw' THEN d.account || ':' ELSE '' END || d.session_id || ':' || d.seq
       END AS event_id,
       d.lane, d.kind, d.source, d.title, d.text, d.workspace_id, d.workspace_path,
       d.session_id, d.seq, d.event_type, d.episode_id, d.actor_id, d.time, d.outcome, d.skills, d.account,
       d.path, d.start_line, d.end_line, d.source_kind, d.symbol, d.language,
       coalesce(hs.cwd, acs.workspace) AS session_cwd,
       coalesce(hs.created_at, acs.created_at) AS session_created_at,
       coalesce(hs.agent_preset, acs.preset_label) AS session_preset,
       coalesce(hs.title, hs.proj_title, acs.title) AS session_title,
       sk.path AS skill_path, sk.name AS skill_name, sk.description AS skill_description,
       sk.when_to_use AS skill_when_to_use, sk.content_hash AS skill_hash, sk.uses AS skill_uses,
       sk.used_by AS skill_used_by
FROM ak_document d
LEFT JOIN stg_dsh_sessions hs ON d.source = 'harness' AND hs.session_id = d.session_id
LEFT JOIN stg_ac_sessions acs ON d.source = 'autoclaw' AND acs.account = d.account AND acs.session_id = d.session_id
LEFT JOIN ak_skill sk ON d.lane = 'skills' AND sk.skill_id = d.doc_key
WHERE d.doc_id IN ({doc_ids})
ORDER BY d.doc_id;
