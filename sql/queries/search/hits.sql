-- This search's lane hits with the cheap columns fusion needs, in one statement. {rows} is one
-- literal of numbers only ('lane_no,doc_id,lex,bits,fb,tr,vec;…', literals.number_rows; fb = feedback score, tr = trust,
-- vec = the unit's similarity to the query, empty when the vector side did not return it): parsing one string
-- is much cheaper than binding hundreds of list constants. {doc_ids} = the same ids as a plain IN
-- list (zone maps prune the scan of ak_document).
-- grp = what one lane item stands for (an episode, a skill name, a chunk); cap_key = what the
-- diversity caps count (a code chunk's path, read from its stable id chunk:<ws>:<path>:<n>);
-- skills = the names of the skills an episode hit's episode used (ak_document.skills, the names
-- ak_skill_use records), so fusion can tell a skill used by matching episodes from a word match.
INSERT INTO _hits
SELECT ['episodes', 'code', 'skills'][h.lane_no + 1] AS lane, h.lex, h.bits, doc.doc_id, doc.doc_key, doc.episode_id, doc.actor_id, doc.workspace_id, doc.time,
       doc.outcome,
       CASE WHEN h.lane_no = 0 AND doc.episode_id IS NOT NULL THEN doc.episode_id
            WHEN h.lane_no = 2 THEN split_part(doc.doc_key, ':', 3)   -- skill:<root>:<name>[:…]
            ELSE doc.doc_key END AS grp,
       CASE WHEN h.lane_no = 1 THEN regexp_replace(doc.doc_key, ':[0-9]+$', '')
            ELSE doc.doc_key END AS cap_key,
       CASE WHEN h.lane_no = 0 THEN doc.skills END AS skills,   -- the skills its episode used (evidence)
       h.fb, h.tr, h.vec
FROM (SELECT split_part(r, ',', 1)::INTEGER AS lane_no, split_part(r, ',', 2)::INTEGER AS doc_id,
             split_part(r, ',', 3)::DOUBLE AS lex, split_part(r, ',', 4)::BIGINT AS bits,
             split_part(r, ',', 5)::DOUBLE AS fb, split_part(r, ',', 6)::DOUBLE AS tr,
             nullif(split_part(r, ',', 7), '')::DOUBLE AS vec
      FROM unnest(string_split({rows}, ';')) AS t(r)) AS h
JOIN (SELECT * FROM ak_document WHERE doc_id IN ({doc_ids})) AS doc ON doc.doc_id = h.doc_id;
