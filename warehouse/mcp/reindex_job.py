"""`knowledge_reindex` in a child process: progress as JSON lines, cancellation by SIGINT, the lock respected.

The server never runs a reindex on its own event loop: a child process can be stopped safely
(SIGINT → `reindex` drops its build file, records the run as cancelled and releases the writer
lock; the published generation is only ever replaced by an atomic publish, so it stays intact),
and the build's memory is the child's, not the long-running server's. The child reads its job
from argv: the locations are the server's own, never a tool argument.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from typing import Any

from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.proc import tuned_env

Report = Callable[[float, str], Awaitable[None]]
STOP_GRACE_S = 30.0


def _line(doc: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(doc, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    """Child side: run `Warehouse.reindex` on the job in argv[0], report progress lines and one result line."""
    from warehouse.api import Warehouse
    from warehouse.indexing.child import die_with_parent

    die_with_parent()
    job = json.loads(argv[0])
    wh = Warehouse.open(job["dsh_home"], job["autoclaw_root"], job["home"])
    try:
        doc = wh.reindex(mode=job["mode"], progress=lambda desc, adv, total: _line(
            {"progress": {"desc": desc, "advance": adv, "total": total}}))
    except KnowledgeError as e:
        _line({"error": e.to_dict()})
        return 2
    except KeyboardInterrupt:
        _line({"error": {"code": Code.INTERNAL.value, "message": "cancelled; the published generation is unchanged",
                         "cancelled": True}})
        return 130
    _line({"result": doc})
    return 0


async def run_reindex(paths: Paths, mode: str, report: Report | None = None) -> dict[str, Any]:
    """Server side: start the child, relay its progress, return its result or raise its KnowledgeError.

    Cancelled (the client sent notifications/cancelled): SIGINT the child and wait for it to clean up."""
    import anyio
    from anyio.streams.text import TextReceiveStream

    job = {"dsh_home": str(paths.dsh_home), "autoclaw_root": str(paths.autoclaw_root), "home": str(paths.home),
           "mode": mode}
    proc = await anyio.open_process([sys.executable, "-m", "warehouse.mcp.reindex_job", json.dumps(job)],
                                    stdin=None, env=tuned_env(dict(os.environ)))
    final: dict[str, Any] | None = None
    stderr_tail: list[str] = []
    done = 0.0

    async def drain_stderr() -> None:
        assert proc.stderr is not None
        async for chunk in TextReceiveStream(proc.stderr, errors="replace"):
            stderr_tail[:] = [*stderr_tail, chunk][-8:]

    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(drain_stderr)
            assert proc.stdout is not None
            buf = ""
            async for chunk in TextReceiveStream(proc.stdout, errors="replace"):
                buf += chunk
                *lines, buf = buf.split("\n")
                for line in lines:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if "progress" in msg and report is not None:
                        p = msg["progress"]
                        done += max(1, int(p.get("advance") or 0))
                        total = f"/{p['total']}" if p.get("total") is not None else ""
                        await report(done, f"{p['desc']} +{p.get('advance')}{total}")
                    elif "result" in msg or "error" in msg:
                        final = msg
            await proc.wait()
    except BaseException:
        with anyio.CancelScope(shield=True):
            await _stop(proc)
        raise
    if final is None:
        from warehouse.core.redact import redact

        tail = redact("".join(stderr_tail).strip().splitlines()[-1:][0] if "".join(stderr_tail).strip() else "")
        raise KnowledgeError(Code.INTERNAL, f"reindex child exited {proc.returncode} without a result: {tail}"[:500])
    if "error" in final:
        err = dict(final["error"])
        raise KnowledgeError(err.pop("code"), str(err.pop("message", "")), **err)
    return final["result"]


async def _stop(proc: Any) -> None:
    """SIGINT, a grace period for the child's own cleanup, then SIGKILL."""
    import anyio

    if proc.returncode is None:
        proc.send_signal(signal.SIGINT)
        with anyio.move_on_after(STOP_GRACE_S):
            await proc.wait()
    if proc.returncode is None:
        proc.kill()
        await proc.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
