-- What a forget removes besides documents: $1 session ids, $2 every item id, document key and episode id.
SELECT (SELECT count(*) FROM ak_event WHERE list_contains($1, session_id)) AS events,
       (SELECT count(*) FROM ak_episode WHERE list_contains($1, session_id)) AS episodes,
       (SELECT count(*) FROM ak_actor
        WHERE list_contains($2, actor_id) OR (len(session_ids) > 0 AND list_has_all($1, session_ids))) AS actors,
       (SELECT count(*) FROM ak_memory WHERE list_contains($1, source_session_id)) AS memories,
       (SELECT count(*) FROM ak_relation WHERE list_contains($2, src_id) OR list_contains($2, dst_id)) AS relations
