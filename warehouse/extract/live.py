"""Late-binding access checks against the live sources (seed 004: the ACL cache lags the source).

The index's rights were captured at extract time; just before items are shown, search asks the
sources again whether each one still stands: the DSH workspace still exists and its registry still
lists the session, the AutoClaw account database is still readable and the session not deleted,
the skill file or the code file is still there. Every answer is a plain bool, and anything that
cannot be checked (file gone, unreadable, locked, corrupt, slow) is `False`: the caller then hides
the item (fail closed). Read-only like every extractor; nothing here writes or creates a file.

Live, yet cheap: the registry and each account's session list are re-read only when their files'
stat (inode, size, mtime, ctime, mode — a replaced, rewritten or chmod-ed file changes one; a -wal or
-shm side file without its ctime, which a reader's own open changes) differs from the last read, so a
response pays a few `stat` calls, not a JSON parse and a database open; a workspace folder is checked
once per response however many of its items it holds.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from warehouse.extract.autoclaw.sqlite_open import OpenPolicy, open_source
from warehouse.extract.registry import read_registry

DB_REL = Path("runtime") / "runtime.sqlite"  # as extract.autoclaw.job (not imported: it pulls in polars)
CHECK_POLICY = OpenPolicy(busy_timeout_s=0.2, tries=1, backoff_s=0.0)  # a slow source is an unconfirmed one
_SIDES = ("", "-wal", "-shm", "-journal")
_memo: dict[str, tuple[Any, Any]] = {}  # file -> (stat signature, what was read from it)
_memo_lock = threading.Lock()


def _stat(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if path.endswith(("-wal", "-shm")):  # a reader's own open touches their ctime: every read would miss
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode)
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _memoised(key: str, files: list[str], read: Any) -> Any:
    """`read()` again only when the stat of `files` changed since the last read (else its last answer)."""
    sig = tuple(_stat(f) for f in files)
    with _memo_lock:
        hit = _memo.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    value = read()
    with _memo_lock:
        _memo[key] = (sig, value)
    return value


@dataclass
class LiveSources:
    """The live checks of one response: each registry and database is read at most once."""

    dsh_home: Path
    autoclaw_root: Path
    _registry: dict[str, set[str]] | None = None  # workspace id -> sessions it lists (None: not read yet)
    _ws_paths: dict[str, str] = field(default_factory=dict)
    _sessions: dict[str, dict[str, bool] | None] = field(default_factory=dict)  # account -> session -> deleted
    _ws_live: dict[str, bool] = field(default_factory=dict)  # workspace id -> its folder is there

    def _read_registry(self) -> dict[str, set[str]]:
        if self._registry is None:
            files = [str(self.dsh_home / "storages" / "workspace.json")]
            self._registry, self._ws_paths = _memoised("registry:" + files[0], files,
                                                       lambda: _parse_registry(self.dsh_home))
        return self._registry

    def workspace_live(self, workspace_id: str | None) -> bool:
        """The registry still has the workspace and its folder is still there (asked once per response)."""
        if not workspace_id or workspace_id not in self._read_registry():
            return False
        if workspace_id not in self._ws_live:
            path = self._ws_paths.get(workspace_id)
            self._ws_live[workspace_id] = bool(path) and os.path.isdir(path or "") and \
                os.access(path or "", os.R_OK | os.X_OK)
        return self._ws_live[workspace_id]

    def dsh_session_workspaces(self, session_id: str | None) -> list[str]:
        """The workspaces the live registry lists the session in (its rights now, not at extract time)."""
        return sorted(w for w, ids in self._read_registry().items() if session_id and session_id in ids)

    def code_file_live(self, workspace_id: str | None, rel_path: str | None) -> bool:
        if not rel_path or not self.workspace_live(workspace_id):
            return False
        return _readable_file(os.path.join(self._ws_paths[workspace_id or ""], rel_path))

    def autoclaw_session_live(self, account: str | None, session_id: str | None) -> bool:
        """The account's database opens read-only and still holds the session, not deleted."""
        if not account or not session_id or "/" in account or account in (".", ".."):
            return False
        if account not in self._sessions:
            db = Path(self.autoclaw_root) / "accounts" / account / DB_REL
            self._sessions[account] = _memoised("autoclaw:" + str(db), [f"{db}{s}" for s in _SIDES],
                                                lambda: _account_sessions(db))
        sessions = self._sessions[account]
        return sessions is not None and sessions.get(session_id) is False


def _parse_registry(dsh_home: Path) -> tuple[dict[str, set[str]], dict[str, str]]:
    """workspace id -> the sessions it lists, and -> its folder; empty when the registry is unreadable."""
    reg = read_registry(dsh_home)
    sessions: dict[str, set[str]] = {}
    paths: dict[str, str] = {}
    if reg.error is None:
        for wid, w in reg.entries.items():
            sessions[wid] = {s for s in (w.get("sessionIds") or []) if isinstance(s, str)}
            if isinstance(w.get("path"), str):
                paths[wid] = str(Path(w["path"]).expanduser())
    return sessions, paths


def skill_file_live(path: str | None) -> bool:
    return bool(path) and _readable_file(path or "")


def _readable_file(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.R_OK)


def _account_sessions(db: Path) -> dict[str, bool] | None:
    """session_id -> deleted, from the live database; None when it cannot be read (any reason)."""
    try:
        src = open_source(db, CHECK_POLICY)
    except Exception:
        return None
    try:
        rows = src.conn.execute("SELECT session_id, deleted_at IS NOT NULL FROM work_sessions").fetchall()
        return {str(s): bool(d) for s, d in rows}
    except (sqlite3.Error, OSError):
        return None
    finally:
        src.close()
