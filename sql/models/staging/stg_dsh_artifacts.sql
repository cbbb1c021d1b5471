-- Files presented as deliverables or changed in the workspace, per DSH event.
SELECT DISTINCT session_id, seq, time, path, change, description
FROM {{ lake('dsh', 'artifacts') }}
