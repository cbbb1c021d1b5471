"""The one place a `knowledge.search/v1` request is assembled from plain arguments.

The CLI, the API's conveniences, the demo, eval and bench all build requests here, so a new
request field or default is added once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SCHEMA = "knowledge.search/v1"


def search_request(query: str, mode: str = "auto", limit: int = 10, workspaces: Iterable[str] | None = None,
                   **extra: Any) -> dict[str, Any]:
    """A request document; `workspaces` is merged into any `filters` given in `extra`."""
    req: dict[str, Any] = {"schema": SCHEMA, "query": query, "mode": mode, "limit": limit, **extra}
    if workspaces:
        req["filters"] = {**(req.get("filters") or {}), "workspaces": list(workspaces)}
    return req
