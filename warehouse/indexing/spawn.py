"""Run the build child (`indexing.child`) in its own process: one retry with more memory, readable errors,
and a stop when it is stuck.

A fresh process that imports only DuckDB keeps the build's peak RSS its own and lets the OS take
every byte back; the child reads its job from a file (argv stays short) and dies with its parent.

A child that neither uses CPU nor reads or writes anything for `STALL_S` is stuck, not slow: DuckDB 1.4.4
once deadlocked a 1M-event build (every thread waiting on a futex, for good; issue 27), and the run held
the home's lock until someone killed it. Such a child is stopped and the run fails with a coded error
(the published generation stays), so a scheduled run never hangs the home.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from warehouse.core import db
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.proc import tuned_env
from warehouse.core.redact import redact
from warehouse.core.settings import size_bytes

_CHILD = ("import sys, pathlib; from warehouse.indexing import child as b; b.die_with_parent(); "
          "sys.exit(b.main(['', pathlib.Path(sys.argv[1]).read_text()]))")


STALL_S = 300.0  # a build is stuck after this long without CPU time or IO (a slow build uses one core)
_POLL_S = 2.0


class StalledBuild(Exception):
    """The build child made no progress for `seconds` and was stopped."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"index build made no progress for {seconds:.0f} s (no CPU time, nothing read or written) "
                         "and was stopped; the published generation stays. Run `akw reindex` again; if it stops "
                         "again, try `akw config set index.threads=2`")
        self.seconds = seconds


def run_build_child(job: dict[str, Any], build_path: Path, record: dict[str, Any]) -> dict[str, Any]:
    """Build `job` into `build_path`; return the child's stats. An out-of-memory build is retried once
    with 4× `index.memory_limit`, and the run `record` gets a KNOWLEDGE_LIMIT warning saying so."""
    job_file = build_path.with_suffix(".job.json")
    job_file.write_text(json.dumps(job), encoding="utf-8")
    os.chmod(job_file, 0o600)
    try:
        proc = _spawn(job_file)
        bigger = _bigger_memory_limit(job["memory_limit"]) if proc.returncode != 0 and _out_of_memory(proc.stderr) \
            else None
        if bigger:
            record.setdefault("warnings", []).append({
                "code": Code.LIMIT.value, "unit": "build",
                "message": f"index.memory_limit {job['memory_limit']} was too small for this data; built with "
                           f"{bigger} (raise the setting: `akw config set index.memory_limit={bigger}`)"})
            db.remove_files(build_path)
            job_file.write_text(json.dumps({**job, "memory_limit": bigger}), encoding="utf-8")
            proc = _spawn(job_file)
    finally:
        job_file.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise KnowledgeError(Code.INTERNAL, f"index build failed: {child_error(proc.stderr, proc.returncode)}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _spawn(job_file: Path) -> subprocess.CompletedProcess[str]:
    with subprocess.Popen([sys.executable, "-c", _CHILD, str(job_file)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=tuned_env(dict(os.environ))) as proc:
        try:
            return wait_while_progressing(proc)
        except StalledBuild as e:
            raise KnowledgeError(Code.INTERNAL, str(e)) from None
        except BaseException:  # Ctrl-C, a cancel: the child goes with the run (as subprocess.run does)
            proc.kill()
            proc.wait()
            raise


def wait_while_progressing(proc: subprocess.Popen[str],
                           stall_s: float | None = None) -> subprocess.CompletedProcess[str]:
    """Wait for `proc` and collect its output; kill it and raise StalledBuild once it has used no CPU time and
    read or written nothing for `stall_s` seconds (default `STALL_S`)."""
    import psutil

    stall_s = STALL_S if stall_s is None else stall_s
    try:
        watched: psutil.Process | None = psutil.Process(proc.pid)
    except psutil.NoSuchProcess:  # already gone: communicate() returns at once
        watched = None
    last, since = None, time.monotonic()
    while True:
        try:
            out, err = proc.communicate(timeout=min(_POLL_S, stall_s))
            return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            pass
        now = _work_done(watched)
        if now is None or now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= stall_s:
            proc.kill()
            proc.communicate()
            raise StalledBuild(stall_s)


def _work_done(p: Any) -> tuple[float, int, int] | None:
    """CPU seconds and bytes read and written so far by process `p` (the bytes 0 where the system does not
    say; None once it is gone)."""
    import psutil

    if p is None:
        return None
    try:
        cpu = p.cpu_times()
    except psutil.Error:
        return None
    try:
        io = p.io_counters()
        read, written = io.read_chars, io.write_chars
    except (psutil.Error, AttributeError):  # AttributeError: a platform without per-process IO counters
        read = written = 0
    return (cpu.user + cpu.system, read, written)


def _out_of_memory(stderr: str) -> bool:
    return "OutOfMemoryException" in stderr or "Out of Memory Error" in stderr


def _bigger_memory_limit(limit: str, factor: int = 4) -> str | None:
    """`limit` × factor, at most a quarter of this machine's RAM and 2 GB (the 1M-document budget);
    None when the limit cannot grow (or is not a size DuckDB's way of writing we understand)."""
    import psutil

    try:
        now = size_bytes(limit)
    except ValueError:
        return None
    cap = min(2 * 10**9, psutil.virtual_memory().total // 4)
    new = min(now * factor, cap)
    return f"{int(new // 10**6)}MB" if new > now * 1.05 else None




def child_error(stderr: str, returncode: int) -> str:
    """The child's exception line (not the hint lines DuckDB appends after it), redacted, with
    what to do when it ran out of memory."""
    lines = [ln.strip() for ln in stderr.strip().splitlines() if ln.strip()]
    errors = [ln for ln in lines if re.match(r"^[\w.]+(Error|Exception)\b.*:", ln)]
    line = redact((errors or lines or [f"exit {returncode}"])[-1])[:500]
    steps = [ln.removeprefix("akw build step: ") for ln in lines if ln.startswith("akw build step: ")]
    if steps:
        line = f"{steps[-1]}: {line}"
    if "OutOfMemory" in line or "Out of Memory" in line:
        line += (" — raise the build's memory (`akw config set index.memory_limit=1GB`; a million documents"
                 " build in about 1-2 GB)")
    return line
