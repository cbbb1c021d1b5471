"""Bench phase: N searches through one real MCP server process (`python -m warehouse.mcp`, stdio).

What an agent pays per `knowledge_search` call end to end: JSON-RPC over pipes, the request
contract, the search, the untrusted wrapper and the budget again, the result as JSON. The server
is spawned by the SDK's stdio client (the `mcp` extra; without it the phase says skipped) with
our glibc malloc tunable, and its RSS is read from /proc while it serves. The requests are
distinct (query, mode) pairs, so the response cache never answers one.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from warehouse.bench.stats import percentiles
from warehouse.core.proc import tuned_env

MODES = ("auto", "find_agent", "find_skill", "find_code", "find_knowledge")
SEARCHES = 500


def requests(queries: list[str], n: int = SEARCHES) -> list[dict[str, Any]]:
    """n distinct search arguments: every query in every mode, query-major."""
    pairs = [(q, m) for q in queries for m in MODES][:n]
    return [{"query": q, "mode": m, "limit": 10} for q, m in pairs]


def _server_rss_mb(pid: int) -> dict[str, float]:
    """Current (VmRSS) and peak (VmHWM) resident memory of the server process, in MB."""
    import psutil

    out = {"rss_mb": round(psutil.Process(pid).memory_info().rss / 2**20, 1)}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                out["peak_rss_mb"] = round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return out


def _server_pid() -> int | None:
    import psutil

    for p in psutil.Process().children(recursive=True):
        try:
            if "warehouse.mcp" in " ".join(p.cmdline()):
                return p.pid
        except psutil.Error:
            continue
    return None


def run_mcp_phase(dsh: str, autoclaw: str, home: str, queries: list[str], n: int = SEARCHES) -> dict[str, Any]:
    """Latency P50/P95 of n searches through one server, and the server's RSS after warm-up and at the end."""
    try:
        import anyio
        from mcp import Client, StdioServerParameters
    except ImportError:
        return {"skipped": "the [mcp] extra is not installed"}
    env = tuned_env({"DSH_HOME": dsh, "AUTOCLAW_ROOT": autoclaw, "AKW_HOME": home})
    params = StdioServerParameters(command=sys.executable, args=["-m", "warehouse.mcp"], env=env)
    todo = requests(queries, n)
    result: dict[str, Any] = {}

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as c:
            t0 = time.perf_counter()
            first = await c.call_tool("knowledge_status", {})
            result["first_call_ms"] = round((time.perf_counter() - t0) * 1000, 3)
            pid = _server_pid()
            result["server_pid_found"] = pid is not None
            result["rss_start"] = _server_rss_mb(pid) if pid else {}
            ms: list[float] = []
            errors = not_found = 0
            for args in todo:
                t = time.perf_counter()
                r = await c.call_tool("knowledge_search", args)
                ms.append((time.perf_counter() - t) * 1000)
                if r.is_error:
                    errors += 1
                elif not (r.structured_content or {}).get("found"):
                    not_found += 1
            result.update(latency=percentiles(ms), errors=errors, not_found=not_found,
                          status_error=first.is_error, rss_end=_server_rss_mb(pid) if pid else {})
            tail = ms[len(ms) // 2:]
            result["second_half"] = percentiles(tail)  # drift over the run shows as a slower second half

    anyio.run(main)
    return {"searches": len(todo), "modes": list(MODES), "glibc_tunables": env.get("GLIBC_TUNABLES"),
            **result}
