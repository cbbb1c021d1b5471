"""`python -m warehouse.mcp`: the MCP server over stdio (what `akw mcp` re-execs into)."""

from warehouse.mcp.server import main

main()
