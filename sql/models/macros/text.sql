-- Text renderers for indexed texts and names, so snippets and titles read as words, not JSON.
-- akw_json_text(j): a JSON object as its top-level values joined by spaces (`{"command":"ls"}` ->
--   `ls`); anything else (plain text, arrays, broken JSON) is returned as it is.
-- akw_files_text(j): a `files` list of DSH events (`[{path, change}]` or `[{path, description}]`)
--   as one line per file: `path (change)` / `path — description`.
-- akw_path_name(p): the last segment of a path (`/home/u/shop-api/` -> `shop-api`), / or \.
CREATE OR REPLACE MACRO akw_json_text(j) AS
    CASE WHEN j IS NOT NULL AND json_valid(j) AND json_type(j) = 'OBJECT'
         THEN array_to_string(json_extract_string(j, '$.*'), ' ')
         ELSE j END;
CREATE OR REPLACE MACRO akw_files_text(j) AS
    CASE WHEN j IS NOT NULL AND json_valid(j) AND json_type(j) = 'ARRAY'
         THEN array_to_string(list_transform(json_extract(j, '$[*]'),
                  f -> json_extract_string(f, '$.path') || coalesce(' (' || json_extract_string(f, '$.change') || ')', '')
                       || coalesce(' — ' || json_extract_string(f, '$.description'), '')), E'\n')
         ELSE j END;
CREATE OR REPLACE MACRO akw_path_name(p) AS
    nullif(regexp_extract(rtrim(p, '/\'), '[^/\\]+$'), '');
