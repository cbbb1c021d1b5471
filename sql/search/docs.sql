-- The cheap columns of this search's hit documents ({doc_ids} = literal ints: an index scan).
INSERT INTO _docs
SELECT doc_id, doc_key, episode_id, actor_id, workspace_id, time, outcome
FROM ak_document WHERE doc_id IN ({doc_ids});
