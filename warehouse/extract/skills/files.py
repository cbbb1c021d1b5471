"""List a skill folder's resources: every file but SKILL.md, by path, size and hash, never by content.

Symlinks are listed only when they resolve to a file inside the skill folder; linked directories
are not descended (no walking out of the folder, no cycles). Content is read only to hash it and
to decide `is_binary`; it is never returned.
"""

from __future__ import annotations

import codecs
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass

SKIP_DIRS = frozenset({".git", "__pycache__", "node_modules"})
_CHUNK = 1 << 16
_SNIFF = 8192


@dataclass(frozen=True)
class ResourceStat:
    rel_path: str
    abs_path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Resource:
    rel_path: str
    size: int
    sha256: str  # hex
    is_binary: bool


def _inside(path: str, root_real: str) -> bool:
    real = os.path.realpath(path)
    return real == root_real or real.startswith(root_real + os.sep)


def stat_resources(folder: str, skip: Callable[[str], bool] = lambda _p: False) -> list[ResourceStat]:
    """Files under `folder` except the top-level SKILL.md, sorted by relative path (POSIX separators)."""
    root_real = os.path.realpath(folder)
    out: list[ResourceStat] = []

    def walk(d: str, rel: str) -> None:
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError:
            return
        for e in entries:
            r = f"{rel}{e.name}"
            if (not rel and e.name == "SKILL.md") or skip(e.path):
                continue
            try:
                if e.is_symlink():
                    if not _inside(e.path, root_real) or not os.path.isfile(e.path):
                        continue
                    st = os.stat(e.path)
                elif e.is_dir(follow_symlinks=False):
                    if e.name not in SKIP_DIRS:
                        walk(e.path, r + "/")
                    continue
                elif e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                else:
                    continue  # sockets, fifos, devices
            except OSError:
                continue
            out.append(ResourceStat(r, e.path, st.st_size, st.st_mtime_ns))

    walk(folder, "")
    return out


def hash_resource(st: ResourceStat) -> Resource | None:
    """Stream the file once: sha256, NUL in the first 8 KB or invalid UTF-8 -> binary. None if unreadable."""
    h = hashlib.sha256()
    dec = codecs.getincrementaldecoder("utf-8")()
    binary = False
    seen = 0
    try:
        with open(st.abs_path, "rb") as f:
            while block := f.read(_CHUNK):
                h.update(block)
                if not binary:
                    if seen < _SNIFF and b"\0" in block[: _SNIFF - seen]:
                        binary = True
                    else:
                        try:
                            dec.decode(block)
                        except UnicodeDecodeError:
                            binary = True
                seen += len(block)
            if not binary:
                try:
                    dec.decode(b"", final=True)
                except UnicodeDecodeError:
                    binary = True
    except OSError:
        return None
    return Resource(st.rel_path, seen, h.hexdigest(), binary)
