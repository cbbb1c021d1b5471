-- knowledge_dispatch: one actor by id ($1), with what the plan needs to say about it.
SELECT actor_id, kind, source, display_name, dispatch_mode, session_ids, parent_session_id, episodes,
       success_rate, top_skills, last_activity, origin, workspace_path, session_id
FROM ak_actor WHERE actor_id = $1
