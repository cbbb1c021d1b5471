"""Where skills live (SOURCES.md §1.4, §2.1): the ordered list of skill roots and the skill folders in each.

Root order is fixed (dsh_home, per workspace .dsh then .agents, extra dirs, Claude Code's and Codex's
`skills/` in their homes, AutoClaw accounts) because
it decides which of two same-named skills keeps the plain skill id.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from warehouse.core.errors import Code
from warehouse.core.paths import tool_homes
from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.registry import read_workspaces

SKILL_FILE = "SKILL.md"
TOOL_ROOT_KINDS = {"claude_code": "claude_home", "codex": "codex_home"}
MAX_DEPTH = 3  # category folders: <root>/<group>/<skill>/SKILL.md
_SKIP = frozenset({"node_modules", "__pycache__"})


@dataclass(frozen=True)
class Root:
    kind: str  # dsh_home | workspace_dsh | workspace_agents | extra | autoclaw | claude_home | codex_home
    path: Path
    workspace_id: str | None = None
    account: str | None = None

    @property
    def id_suffix(self) -> str:
        """Part of the skill id that separates same-named skills of different workspaces/accounts."""
        tag = self.workspace_id or self.account
        return f":{tag}" if tag else ""


def root_error(report: SourceReport, code: Code, unit: str, message: str) -> None:
    """A problem above the level of one skill (registry, configured dir, AutoClaw bookkeeping)."""
    report.errors.append({"code": code.value, "unit": unit, "message": message})
    report.degraded = True


def discover_roots(ctx: ExtractContext, report: SourceReport) -> tuple[list[Root], bool]:
    """(existing, non-excluded roots in the binding order, registry readable). Problems with the registry
    or a configured extra dir are reported (the source is degraded) but never stop the other roots."""
    roots: list[Root] = [Root("dsh_home", ctx.paths.dsh_home / "skills")]
    workspaces, err = read_workspaces(ctx.paths.dsh_home)
    if err:
        root_error(report, Code.SOURCE_CORRUPT, "workspace.json", err)
    for ws in workspaces:
        if ctx.excluded_workspace(ws.id, ws.path):
            continue
        base = Path(ws.path)
        roots.append(Root("workspace_dsh", base / ".dsh" / "skills", workspace_id=ws.id))
        roots.append(Root("workspace_agents", base / ".agents" / "skills", workspace_id=ws.id))
    for d in ctx.settings.sources.extra_skill_dirs:
        p = Path(d).expanduser().absolute()
        if not p.is_dir():
            root_error(report, Code.SOURCE_UNAVAILABLE, f"extra:{p}", "configured skills dir does not exist")
            continue
        roots.append(Root("extra", p))
    for name, home in tool_homes(ctx.paths).items():  # the tools' user skills (issue 26): claude_home, codex_home
        if getattr(ctx.settings.sources, name) is not False:
            roots.append(Root(TOOL_ROOT_KINDS[name], home / "skills"))
    accounts = ctx.paths.autoclaw_root / "accounts"
    if accounts.is_dir():
        for acct in sorted(p.name for p in accounts.iterdir() if p.is_dir()):
            roots.append(Root("autoclaw", accounts / acct / "runtime" / "zwork-agent" / "skills", account=acct))
    return [r for r in roots if r.path.is_dir() and not ctx.excluded_path(str(r.path))], err is None


def skill_dirs(root: Path, unreadable: list[str] | None = None) -> list[str]:
    """Relative (POSIX) folders under `root` holding SKILL.md, sorted; a skill folder is not searched
    further. Hidden folders (`.zwork-bundles`, `.git`) are not skills. Linked folders are followed once, and only
    when they stay inside the root."""
    found: list[str] = []
    seen: set[str] = set()

    base = os.path.realpath(root)

    def walk(d: str, rel: str, depth: int) -> None:
        real = os.path.realpath(d)
        if real in seen or not (real == base or real.startswith(base + os.sep)):
            return  # seen, or a linked folder out of the root: never followed
        seen.add(real)
        try:
            entries = list(os.scandir(d))
        except OSError:
            if rel and unreadable is not None:  # a folder it may not list (mode 000): said, not absent (issue 25)
                unreadable.append(rel.rstrip("/"))
            return
        names = sorted(e.name for e in entries if _is_dir(e))
        for name in names:
            if name.startswith(".") or name in _SKIP:
                continue
            sub, r = os.path.join(d, name), f"{rel}{name}"
            if os.path.isfile(os.path.join(sub, SKILL_FILE)):
                found.append(r)
            elif depth < MAX_DEPTH:
                walk(sub, r + "/", depth + 1)

    walk(str(root), "", 1)
    return found


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """One entry's own failure (a symlink loop: ELOOP, a folder it may not stat) skips that entry only;
    raised inside the listing, it used to empty the whole root (issue 25: every home skill vanished)."""
    try:
        return entry.is_dir()
    except OSError:
        return False
