-- AutoClaw work runs (one run = one episode), newest version per (account, run_id).
-- unique: account, run_id
SELECT *
FROM {{ lake('autoclaw', 'ac_runs') }}
QUALIFY row_number() OVER (PARTITION BY account, run_id ORDER BY extracted_seq DESC) = 1
