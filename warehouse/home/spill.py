"""Per-process DuckDB spill folders: `$AKW_HOME/spill/<pid>-<start>`, 0700, capped, never shared.

A read-only DuckDB open spills to `<database>.tmp` by default, one folder for every process: two
`akw sql` runs that spilled at once crashed each other (SIGSEGV). Each process gets its own folder
under the home instead; it is removed at exit, and the folders of processes that died (kill -9)
are swept the next time any process opens a reader.
"""

from __future__ import annotations

import atexit
import os
import shutil
from pathlib import Path

from warehouse.core.paths import private_dir

_MINE: dict[Path, Path] = {}  # spill root -> this process's folder in it


def _tag(pid: int) -> str | None:
    """`<pid>-<process start ticks>`: a recycled pid does not claim a dead process's folder."""
    try:
        return f"{pid}-{Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[19]}"
    except (OSError, IndexError):
        return None if not _alive(pid) else str(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep(root: Path) -> int:
    """Remove the spill folders of processes that are gone; returns how many."""
    removed = 0
    if not root.is_dir():
        return 0
    for d in root.iterdir():
        pid = d.name.split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        if _tag(int(pid)) != d.name:
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def folder(root: Path) -> Path:
    """This process's spill folder under `root` (created 0700; stale ones swept on first use)."""
    mine = _MINE.get(root)
    if mine is None:
        private_dir(root)
        sweep(root)
        mine = root / (_tag(os.getpid()) or str(os.getpid()))
        _MINE[root] = mine
        atexit.register(shutil.rmtree, mine, True)
    private_dir(mine)  # DuckDB removes an empty temp folder when the database closes
    return mine
