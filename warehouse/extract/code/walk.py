"""Walk one workspace folder for the code index: sorted, .gitignore-aware, never out through a link.

Only `stat` happens here (cheap, feeds the cursor); reading, sniffing and chunking happen later and
only for files whose (size, mtime_ns) changed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from warehouse.extract.code.gitignore import IgnoreStack

ALWAYS_SKIP = frozenset({".git", "node_modules", ".venv", "__pycache__"})


@dataclass(frozen=True)
class FileStat:
    rel_path: str  # POSIX, relative to the workspace root
    abs_path: str
    size: int
    mtime_ns: int


@dataclass
class WalkResult:
    files: list[FileStat] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)  # ignored, too_big, outside_link, excluded, not_a_file
    unreadable_dirs: list[str] = field(default_factory=list)  # folders it may not list (mode 000): rel, no slash


def _inside(path: str, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def walk_workspace(root: str, max_bytes: int, excluded: Callable[[str], bool]) -> WalkResult:
    """Candidate files under `root` (sorted by path). `excluded` gets the absolute and the relative path.

    Symlinked files count when they resolve inside the workspace; linked folders are never entered
    (a link out would leave the workspace, a link in would index the same files twice).
    """
    res = WalkResult()
    root_real = os.path.realpath(root)

    def walk(d: str, rel: str, ign: IgnoreStack) -> None:
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            if rel:  # a subfolder it may not read: said, never silently absent (issue 25)
                res.unreadable_dirs.append(rel.rstrip("/"))
            return
        gi = next((e for e in entries if e.name == ".gitignore" and e.is_file()), None)
        if gi is not None:
            try:
                with open(gi.path, encoding="utf-8", errors="replace") as f:
                    ign = ign.push(rel.rstrip("/"), f.read())
            except OSError:
                pass
        for e in entries:
            r = rel + e.name
            try:
                link = e.is_symlink()
                is_dir = os.path.isdir(e.path) if link else e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if (is_dir and e.name in ALWAYS_SKIP) or ign.ignored(r, is_dir):
                res.skipped["ignored"] += 1
                continue
            if excluded(e.path) or excluded(r):
                res.skipped["excluded"] += 1
                continue
            if link:
                if not _inside(e.path, root_real):
                    res.skipped["outside_link"] += 1
                    continue
                if is_dir or not os.path.isfile(e.path):
                    continue  # linked folder inside: its files are walked at their real place
            elif is_dir:
                walk(e.path, r + "/", ign)
                continue
            try:
                st = os.stat(e.path) if link else e.stat(follow_symlinks=False)
            except OSError:
                continue
            if not link and not e.is_file(follow_symlinks=False):
                res.skipped["not_a_file"] += 1  # fifo, socket, device: counted, never opened
                continue
            if st.st_size > max_bytes:
                res.skipped["too_big"] += 1
                continue
            res.files.append(FileStat(r, e.path, st.st_size, st.st_mtime_ns))

    walk(root, "", IgnoreStack())
    return res
