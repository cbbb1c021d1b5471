-- AutoClaw tool calls that load a skill (tool `skill`/`load_skill`/`use_skill`, input {name}).
WITH skill_tool_calls AS (  -- the input parsed once per call (akw_valid_json: NULL unless it is JSON)
    SELECT account, session_id, run_id, entry_id, session_seq, committed_at, akw_valid_json(tool_input) AS input
    FROM {{ ref('stg_ac_entries') }}
    WHERE entry_type = 'tool_call' AND lower(tool_name) IN ('skill', 'load_skill', 'use_skill', 'skills.load')
),
named AS (
    SELECT account, session_id, run_id, entry_id, session_seq, committed_at,
           coalesce(json_extract_string(input, '$.name'), json_extract_string(input, '$.skill'),
                    json_extract_string(input, '$.skillId')) AS skill_name
    FROM skill_tool_calls
)
SELECT account, session_id, run_id, entry_id, session_seq, committed_at, skill_name
FROM named
WHERE skill_name IS NOT NULL
