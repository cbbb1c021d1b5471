-- Semantic lane, step 1b: the documents whose passages are embedded (issue 24; warehouse/core/passages.py):
-- an episode's summary (its requests, final answer), the assistant's messages and the tools' results,
-- and memories, each with the group its passages are capped in (the episode; a memory is its own) and
-- the order they are kept in when a group has more than its cap: the summary first, then what the
-- agent said, then what tools printed, each in event order.
SELECT doc_id, coalesce(episode_id, doc_key) AS grp, text
FROM ak_document
WHERE lane = 'episodes' AND kind IN ('episode', 'memory', 'assistant', 'tool_result')
  AND text IS NOT NULL AND length(text) > 0
ORDER BY grp, CASE kind WHEN 'episode' THEN 0 WHEN 'memory' THEN 0 WHEN 'assistant' THEN 1 ELSE 2 END, seq, doc_id;
