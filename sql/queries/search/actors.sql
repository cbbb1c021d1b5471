-- Actor aggregation over the fused episodes-lane evidence (contract §7.5, spec FR-5.3):
-- score = max(rel) + 0.3·mean(top3 rel) + max(rel)·(0.2·recency + 0.2·success + 0.1·same_workspace
--         + 0.1·skill_overlap)
-- The context terms are scaled by the actor's best relevance: recency or a success record must not
-- lift an actor whose only evidence is a weak match above one that did the task (a deliberate
-- reading of FR-5.3, whose terms are otherwise unscaled).
-- rel = lexical score / best lexical score of the lane (0..1). recency decays with a 90-day
-- half-life from the newest activity in the index ($1, read once per generation; not the wall
-- clock: same index -> same answer). same_workspace: the actor worked in the workspace of the best
-- episode hit; skill_overlap: share of the top-3 skills of the skills lane that the actor used.
-- skills: the actor's five most used skills (for `why` and the response): ak_actor.top_skills.
-- The episodes in _fused include those actor profiles nominated (warehouse/search/fusion.py
-- `nominate`): an actor found by what it is ranks by that match.
-- Prepared once per search cursor (akw_actors). Lists are sorted by list_sort, not ORDER BY
-- inside the aggregate (an ordered aggregate sorts per group: a third of this statement's time);
-- the per-actor skill lists are built with the index (ak_actor), not per search.
WITH top AS (
    SELECT (SELECT workspace_id FROM _fused WHERE lane = 'episodes' ORDER BY rrf DESC, doc_key LIMIT 1) AS ws,
           (SELECT coalesce(list(grp ORDER BY lane_rank), []) FROM _fused WHERE lane = 'skills' AND lane_rank <= 3)
               AS names
),
per AS (
    SELECT actor_id,
           max(rel) AS max_rel,
           list_avg(list_reverse_sort(list(rel))[1:3]) AS mean_top3,
           len(list_distinct(list(episode_id))) AS episodes,
           avg(CASE outcome WHEN 'success' THEN 1.0 WHEN 'partial' THEN 0.5 ELSE 0.0 END) AS success,
           max(time) AS last_time,
           coalesce(bool_or(workspace_id = top.ws), false) AS same_ws
    FROM _fused CROSS JOIN top
    WHERE lane = 'episodes' AND actor_id IS NOT NULL
    GROUP BY actor_id
),
terms AS (
    SELECT p.*, a.kind, a.source, a.display_name, a.context, a.description, a.dispatch_mode, a.success_rate,
           a.episodes AS total_episodes,
           a.top_skills AS skills,
           -- |skills used ∩ top skill names| by inclusion-exclusion (both lists distinct; list_intersect
           -- is a lambda macro, and a lambda re-binds this prepared statement on every EXECUTE)
           CASE WHEN len(top.names) = 0 THEN 0.0
                ELSE (len(a.skill_names) + len(top.names) - len(list_distinct(list_concat(a.skill_names, top.names))))
                     / len(top.names) END AS skill_overlap,
           exp(-greatest(date_diff('hour', p.last_time, $1::TIMESTAMPTZ), 0) / 24.0 / 90.0 * ln(2)) AS recency,
           CASE WHEN p.same_ws THEN 1.0 ELSE 0.0 END AS same_workspace
    FROM per p CROSS JOIN top JOIN ak_actor a USING (actor_id)
)
SELECT t.actor_id, t.kind, t.source, t.display_name, t.dispatch_mode, t.success_rate, t.total_episodes,
       t.episodes, t.max_rel, t.mean_top3, t.success, t.recency, t.same_workspace, t.skill_overlap, t.last_time,
       t.max_rel + 0.3 * t.mean_top3 + t.max_rel * (0.2 * t.recency + 0.2 * t.success + 0.1 * t.same_workspace
           + 0.1 * t.skill_overlap) AS score,
       t.context, t.description, t.skills
FROM terms t
ORDER BY score DESC, t.actor_id;
