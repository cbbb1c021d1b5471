-- Access control: the AutoClaw accounts found at extract time (`access.principals.<email>.autoclaw_accounts`).
-- col: sessions: work sessions of the account (deleted ones included)
-- unique: account
-- not_null: account
WITH accounts AS (
    SELECT account, count(*) AS sessions FROM {{ ref('stg_ac_sessions') }} GROUP BY account
)
SELECT * FROM accounts ORDER BY account
