-- This search's lane hits with the cheap columns fusion needs, in one statement: the hit lists are
-- bound parameters, {doc_ids} = the same ids as literal ints (an index scan of ak_document).
-- grp = what one lane item stands for (an episode, a skill name, a chunk); cap_key = what the
-- diversity caps count (a code chunk's path, read from its stable id chunk:<ws>:<path>:<n>).
INSERT INTO _hits
SELECT h.lane, h.lex, h.bits, doc.doc_id, doc.doc_key, doc.episode_id, doc.actor_id, doc.workspace_id, doc.time,
       doc.outcome,
       CASE WHEN h.lane = 'episodes' AND doc.episode_id IS NOT NULL THEN doc.episode_id
            WHEN h.lane = 'skills' THEN split_part(doc.doc_key, ':', 3)   -- skill:<root>:<name>[:…]
            ELSE doc.doc_key END AS grp,
       CASE WHEN h.lane = 'code' THEN regexp_replace(doc.doc_key, ':[0-9]+$', '')
            ELSE doc.doc_key END AS cap_key
FROM (SELECT unnest($lanes::VARCHAR[]) AS lane, unnest($doc_ids::INTEGER[]) AS doc_id,
             unnest($lex::DOUBLE[]) AS lex, unnest($bits::BIGINT[]) AS bits) AS h
JOIN (SELECT * FROM ak_document WHERE doc_id IN ({doc_ids})) AS doc ON doc.doc_id = h.doc_id;
