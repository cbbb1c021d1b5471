-- Semantic lane, step 1b: the documents whose passages are embedded (issue 24; warehouse/core/passages.py):
-- an episode's summary (its requests, final answer), the assistant's messages and the tools' results,
-- and memories, each with the group its passages are capped in (the episode; a memory is its own) and
-- the order they are kept in when a group has more than its cap: the summary first, then what the
-- agent said, then what tools printed, each in event order. A skill's body is cut too (skills lane): its
-- head unit holds the name and description, while how it is done ("write the failing test first, watch
-- it fail") is deeper in SKILL.md, where a question about the practice finds it.
SELECT doc_id, coalesce(episode_id, doc_key) AS grp, text,
       (CASE lane WHEN 'episodes' THEN 0 ELSE 2 END)::UTINYINT AS lane_no
FROM ak_document
WHERE ((lane = 'episodes' AND kind IN ('episode', 'memory', 'assistant', 'tool_result'))
       OR (lane = 'skills' AND kind = 'skill'))
  AND text IS NOT NULL AND length(text) > 0
ORDER BY grp, CASE kind WHEN 'episode' THEN 0 WHEN 'memory' THEN 0 WHEN 'skill' THEN 0 WHEN 'assistant' THEN 1
                        ELSE 2 END, seq, doc_id;
