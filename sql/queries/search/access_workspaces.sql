-- The registry workspaces a principal's `workspaces` values may name (id, path, folder name, title),
-- read once per generation (warehouse/search/access.py).
SELECT workspace_id, path, name, title FROM ak_acl_workspace ORDER BY workspace_id;
