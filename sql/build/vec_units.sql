-- Semantic lane, step 1: the knowledge units to embed (spec FR-5.1): an episode (its title, goal,
-- outcome and final answer are the `episode` document), a memory, a skill (name, description,
-- whenToUse, the head of its body) and an actor profile (name, description, instructions: lane_no 3,
-- the internal actors lane; a profile hit nominates the actor's representative episode). The head
-- unit (part 0) is the head of the document ($max_chars characters; the title first unless the text
-- already starts with it, then, for a DSH episode titled by its own request, its session's title as context:
-- "paint the paddles red and blue" is part of "a Pong game in pygame"); the passages of the episodes lane (parts 1..n, vec_passage_docs.sql) are
-- added by the build. The md5 of a unit's text is the key vectors are reused by across builds.
-- lane_no follows the lanes' order in the contract (episodes, code, skills), then actors; pos is the
-- passage's offset in the document's clean text (0 for a head).
CREATE OR REPLACE TABLE _vec_unit AS
SELECT doc_id, lane_no, 0::SMALLINT AS part, 0 AS pos, unit_text, md5(unit_text) AS text_md5
FROM (SELECT d.doc_id,
             (CASE d.lane WHEN 'episodes' THEN 0 WHEN 'code' THEN 1 WHEN 'skills' THEN 2 ELSE 3 END)::UTINYINT AS lane_no,
             left(concat_ws(chr(10),
                            CASE WHEN d.title IS NOT NULL AND NOT starts_with(coalesce(d.text, ''), d.title) THEN d.title END,
                            CASE WHEN coalesce(s.title, s.proj_title) IS DISTINCT FROM d.title
                                 THEN coalesce(s.title, s.proj_title) END,
                            coalesce(d.text, '')), $max_chars) AS unit_text
      FROM ak_document AS d
      LEFT JOIN stg_dsh_sessions AS s ON d.kind = 'episode' AND d.source = 'harness' AND s.session_id = d.session_id
      WHERE d.kind IN ('episode', 'memory', 'skill', 'actor'))
WHERE length(trim(unit_text)) > 0;

CREATE OR REPLACE TABLE _vec_known (text_md5 VARCHAR, vec FLOAT[512]);
