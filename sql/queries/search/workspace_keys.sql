-- The workspaces a search filter can name, read once per generation (warehouse/search/workspaces.py):
-- every (workspace_id, workspace_path) pair of the searchable documents with its ws_no, plus
-- registry workspaces without documents (ws_no NULL: known, but nothing of theirs is indexed).
-- folder = the pair's path, else its registry path (a workspace's skills carry only its id);
-- title = the registry title. A filter value is matched against id, path, folder name and title.
WITH reg AS (
    SELECT workspace_id, path, title FROM stg_dsh_workspaces
),
docs AS (
    SELECT ws_no, workspace_id, workspace_path FROM ak_document_workspace
),
named AS (
    SELECT d.ws_no, d.workspace_id, d.workspace_path, coalesce(d.workspace_path, r.path) AS folder, r.title
    FROM docs d
    LEFT JOIN reg r ON r.workspace_id = d.workspace_id
                    OR (d.workspace_id IS NULL AND r.path = d.workspace_path)
),
registry_only AS (
    SELECT CAST(NULL AS INTEGER) AS ws_no, workspace_id, path AS workspace_path, path AS folder, title
    FROM reg
    WHERE workspace_id NOT IN (SELECT workspace_id FROM docs WHERE workspace_id IS NOT NULL)
)
SELECT ws_no, workspace_id, workspace_path, folder, title FROM named
UNION ALL
SELECT ws_no, workspace_id, workspace_path, folder, title FROM registry_only
ORDER BY ws_no NULLS LAST, workspace_id, workspace_path;
