-- AutoClaw tool calls that load a skill (tool `skill`/`load_skill`/`use_skill`, input {name}).
SELECT account, session_id, run_id, entry_id, session_seq, committed_at,
       coalesce(json_extract_string(akw_valid_json(tool_input), '$.name'), json_extract_string(akw_valid_json(tool_input), '$.skill'),
                json_extract_string(akw_valid_json(tool_input), '$.skillId')) AS skill_name
FROM {{ ref('stg_ac_entries') }}
WHERE entry_type = 'tool_call' AND lower(tool_name) IN ('skill', 'load_skill', 'use_skill', 'skills.load')
  AND coalesce(json_extract_string(akw_valid_json(tool_input), '$.name'), json_extract_string(akw_valid_json(tool_input), '$.skill'),
               json_extract_string(akw_valid_json(tool_input), '$.skillId')) IS NOT NULL
