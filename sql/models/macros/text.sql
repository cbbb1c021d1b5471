-- Text renderers for indexed texts and names, so snippets and titles read as words, not JSON.
-- akw_json_text(j): a JSON object as its top-level values joined by spaces (`{"command":"ls"}` ->
--   `ls`); anything else (plain text, arrays, broken JSON) is returned as it is.
-- akw_files_text(j): a `files` list of DSH events (`[{path, change}]` or `[{path, description}]`)
--   as one line per file: `path (change)` / `path — description`.
-- akw_path_name(p): the last segment of a path (`/home/u/shop-api/` -> `shop-api`), / or \.
-- akw_title_of(t): a title made of a request: its first non-empty line, spaces collapsed, cut at a word
--   boundary to at most 80 characters (`…` when cut); NULL for no text. akw_title_cut(t, n): the same, n.
-- akw_is_announcement(t): an assistant message that only announces a step by its name ("Loading the
--   clean-bom-crlf skill.", "Загружаю навык deploy-iya-ru.", "Let me invoke the reviewer agent."), or a
--   Skill tool's result that only says so ("Launching skill: clean-bom-crlf", Claude Code): not a search
--   document (its episode's document names the skills it used; as a snippet it says nothing, issue 28).
--   A message that goes on to say what for ("I'll use the pdf skill to fill the form") is not one.
-- Total on any string: the JSON functions only ever see valid JSON or NULL (`akw_valid_json`). DuckDB does
-- not promise to short-circuit `json_valid(j) AND json_type(j) …` inside one condition; one tool error
-- that was not JSON ("ERROR 1290 (HY000): …") killed the 1M cold build (issue 27).
CREATE OR REPLACE MACRO akw_valid_json(j) AS CASE WHEN json_valid(j) THEN j END;
CREATE OR REPLACE MACRO akw_json_text(j) AS
    CASE WHEN json_type(akw_valid_json(j)) = 'OBJECT'
         THEN array_to_string(json_extract_string(akw_valid_json(j), '$.*'), ' ')
         ELSE j END;
CREATE OR REPLACE MACRO akw_files_text(j) AS
    CASE WHEN json_type(akw_valid_json(j)) = 'ARRAY'
         THEN array_to_string(list_transform(json_extract(akw_valid_json(j), '$[*]'),
                  f -> json_extract_string(f, '$.path') || coalesce(' (' || json_extract_string(f, '$.change') || ')', '')
                       || coalesce(' — ' || json_extract_string(f, '$.description'), '')), E'\n')
         ELSE j END;
CREATE OR REPLACE MACRO akw_path_name(p) AS
    nullif(regexp_extract(rtrim(p, '/\'), '[^/\\]+$'), '');
CREATE OR REPLACE MACRO akw_first_line(t) AS
    nullif(regexp_replace(trim(regexp_extract(t, '[^\n]*\S[^\n]*')), '\s+', ' ', 'g'), '');
CREATE OR REPLACE MACRO akw_title_cut(t, n) AS
    CASE WHEN length(akw_first_line(t)) <= n THEN akw_first_line(t)
         ELSE coalesce(nullif(regexp_replace(left(akw_first_line(t), n), '\s+\S*$', ''), ''),
                       left(akw_first_line(t), n)) || '…' END;
CREATE OR REPLACE MACRO akw_title_of(t) AS akw_title_cut(t, 80);
CREATE OR REPLACE MACRO akw_is_announcement(t) AS
    CASE WHEN length(t) <= 120 THEN regexp_full_match(lower(trim(t)),
        '(?:(?:i''ll|i will|let me|now i''ll|now let me|first,? i''ll)\s+)?(?:load|us|invok|launch|runn?|call|start|activat)\pL*\s+(?:the\s+)?[\pL\pN_.:/@-]+\s+(?:skill|tool|subagent|agent)(?:\s+now)?\s*[.!…:]*'
        || '|launching skill:\s*[\pL\pN_.:/@-]+'
        || '|(?:сейчас\s+|теперь\s+)?(?:загружа|использу|запуска|вызыва|примен|активиру)\pL*\s+(?:навык|инструмент|агент|субагент|скилл)\pL*\s+[\pL\pN_.:/@-]+\s*[.!…:]*')
    ELSE false END;
