-- Saved AutoClaw agents, newest version per (account, agent_id).
-- unique: account, agent_id
SELECT *
FROM {{ lake('autoclaw', 'ac_agents') }}
QUALIFY row_number() OVER (PARTITION BY account, agent_id ORDER BY extracted_seq DESC) = 1
