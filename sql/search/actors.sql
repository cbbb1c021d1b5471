-- Actor aggregation over the fused episodes-lane evidence (contract §7.5, spec FR-5.3):
-- score = max(rel) + 0.3·mean(top3 rel) + max(rel)·(0.2·recency + 0.2·success + 0.1·same_workspace
--         + 0.1·skill_overlap)
-- The context terms are scaled by the actor's best relevance: recency or a success record must not
-- lift an actor whose only evidence is a weak match above one that did the task (a deliberate
-- reading of FR-5.3, whose terms are otherwise unscaled).
-- rel = lexical score / best lexical score of the lane (0..1). recency decays with a 90-day
-- half-life from the newest activity in the index (not the wall clock: same index -> same answer).
-- same_workspace: the actor worked in the workspace of the best episode hit; skill_overlap: share of
-- the top-3 skills of the skills lane that the actor used.
WITH top_ws AS (
    SELECT workspace_id AS ws FROM _fused WHERE lane = 'episodes' ORDER BY rrf DESC, doc_key LIMIT 1
),
top_skills AS (
    SELECT coalesce(list(grp ORDER BY lane_rank), []) AS names FROM _fused WHERE lane = 'skills' AND lane_rank <= 3
),
ev AS (
    SELECT actor_id, episode_id, rel, time, outcome, workspace_id
    FROM _fused WHERE lane = 'episodes' AND actor_id IS NOT NULL
),
per AS (
    SELECT actor_id,
           max(rel) AS max_rel,
           list_avg(list(rel ORDER BY rel DESC)[1:3]) AS mean_top3,
           count(DISTINCT episode_id) AS episodes,
           avg(CASE outcome WHEN 'success' THEN 1.0 WHEN 'partial' THEN 0.5 ELSE 0.0 END) AS success,
           max(time) AS last_time,
           bool_or(workspace_id = (SELECT ws FROM top_ws)) AS same_ws
    FROM ev GROUP BY actor_id
),
ref AS (SELECT max(coalesce(ended_at, started_at)) AS newest FROM ak_episode),
used AS (
    SELECT actor_id, skill_name, count(*) AS uses FROM ak_skill_use GROUP BY ALL
),
overlap AS (
    SELECT p.actor_id,
           CASE WHEN len(any_value(s.names)) = 0 THEN 0.0
                ELSE count(DISTINCT u.skill_name) FILTER (WHERE list_contains(s.names, u.skill_name))
                     / len(any_value(s.names))
           END AS skill_overlap
    FROM per p CROSS JOIN top_skills s LEFT JOIN used u USING (actor_id) GROUP BY p.actor_id
),
terms AS (
    SELECT p.*, o.skill_overlap,
           exp(-greatest(date_diff('hour', p.last_time, ref.newest), 0) / 24.0 / 90.0 * ln(2)) AS recency,
           CASE WHEN coalesce(p.same_ws, false) THEN 1.0 ELSE 0.0 END AS same_workspace
    FROM per p JOIN overlap o USING (actor_id) CROSS JOIN ref
)
SELECT t.actor_id, a.kind, a.source, a.display_name, a.dispatch_mode, a.success_rate, a.episodes AS total_episodes,
       t.episodes, t.max_rel, t.mean_top3, t.success, t.recency, t.same_workspace, t.skill_overlap, t.last_time,
       t.max_rel + 0.3 * t.mean_top3 + t.max_rel * (0.2 * t.recency + 0.2 * t.success + 0.1 * t.same_workspace
           + 0.1 * t.skill_overlap) AS score
FROM terms t
JOIN ak_actor a USING (actor_id)
ORDER BY score DESC, t.actor_id;
