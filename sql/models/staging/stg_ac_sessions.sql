-- AutoClaw work sessions, newest extracted version per (account, session_id); deleted ones flagged.
-- unique: account, session_id
SELECT *, deleted_at IS NOT NULL AS is_deleted
FROM {{ lake('autoclaw', 'ac_sessions') }}
QUALIFY row_number() OVER (PARTITION BY account, session_id ORDER BY extracted_seq DESC) = 1
