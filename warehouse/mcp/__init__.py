"""The MCP surface (`akw mcp`, stdio): ten `knowledge_*` tools, each a thin call of one `Warehouse` method.

Needs the optional `mcp` extra (`pip install 'agent-knowledge-warehouse[mcp]'`); nothing below the
surfaces imports it. docs/mcp.md is the user's guide, ADR 0010 the decisions.
"""
