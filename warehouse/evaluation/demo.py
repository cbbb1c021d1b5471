"""`akw demo`: generated data indexed, then the user journeys the spec's scenarios name (UJ-1..UJ-5).

It drives the API it is handed (`Warehouse`, as eval does), so it sits below the API in the tree and
imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse.search.request import search_request

if TYPE_CHECKING:
    from warehouse.extract.base import Progress

# the scenarios `akw demo` runs: (title, query, mode)
DEMO_SCENARIOS = (
    ("UJ-1 who already migrated iya.ru?", "Кто уже занимался переносом сайта iya.ru на новый сервер?", "auto"),
    ("UJ-2 everything about the deploy-iya-ru skill", "deploy-iya-ru skill for a deployment", "find_skill"),
    ("UJ-4 what do we know about TLS certificates?", "what do we know about renewing TLS certificates", "auto"),
)
# UJ-3 "hand the task to the best performer": a dry run, then a confirmed commit of the same request
DEMO_DISPATCH_TITLE = "UJ-3 hand a task to the best performer (dry run → commit → outbox package)"
DEMO_DISPATCH = {
    "schema": "knowledge.dispatch/v1",
    "dispatch_id": "demo-uj3-mysql-access",
    "task": {"title": "Restore MySQL root access on 176.99.5.35",
             "text": "root gets ERROR 1045 on 176.99.5.35; restore access with mysql-access-restore",
             "acceptance": ["root can log in with the new password", "no database is lost"],
             "constraints": ["do not restart production MySQL during business hours"]},
    "target": "auto",
}


DEMO_RETENTION_DAYS = 36500  # the demo's generated sessions are dated 2026-09 and must not age out
# the demo's own Claude Code and Codex homes (`out/claude`, `out/codex`), indexed beside DSH and AutoClaw
DEMO_CLAUDE_CODE_SESSIONS = 6
DEMO_CODEX_SESSIONS = 4



def run_demo(cls: Any, out: Path, sessions: int, seed: int, progress: Progress | None = None,
             log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate into `out` (unless present), index, run UJ-1/2/4 searches, the UJ-3 dispatch (dry run,
    confirmed commit, the outbox package) and UJ-5 status; the demo's own home is `out/akw-home`.
    `cls` is `warehouse.api.Warehouse`, handed down by the API (which sits above this stage)."""
    if not (out / "manifest.json").exists() or not (out / "claude").is_dir():
        if log:
            log(f"generating {sessions} sessions (seed {seed}) and Claude Code / Codex homes into {out}/ …")
        cls.generate_fixtures(out, sessions=sessions, seed=seed, claude_code_sessions=DEMO_CLAUDE_CODE_SESSIONS,
                              codex_sessions=DEMO_CODEX_SESSIONS)
    # the demo's tools' homes, never this machine's ~/.claude or ~/.codex
    wh = cls.open(out / "dsh", out / "autoclaw", out / "akw-home", out / "claude", out / "codex")
    if wh.settings.retention_days < DEMO_RETENTION_DAYS:  # the generated work is dated 2026-09: keep it
        wh.config_set([f"retention_days={DEMO_RETENTION_DAYS}"])
    doc: dict[str, Any] = {"reindex": wh.reindex(progress=progress)}
    doc["env"] = {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
                  "AKW_HOME": str(wh.paths.home), "CLAUDE_CONFIG_DIR": str(wh.paths.claude_home),
                  "CODEX_HOME": str(wh.paths.codex_home)}
    doc["scenarios"] = {name: wh.search(search_request(q, mode, 6)) for name, q, mode in DEMO_SCENARIOS}
    plan = wh.dispatch({**DEMO_DISPATCH, "dry_run": True}, requested_by="demo")
    commit = wh.dispatch({**DEMO_DISPATCH, "dry_run": False, "commit": True, "confirm": True}, requested_by="demo")
    doc["dispatch"] = {"title": DEMO_DISPATCH_TITLE, "dry_run": plan, "commit": commit,
                       "outbox": wh.dispatch_show(DEMO_DISPATCH["dispatch_id"])}
    doc["status"] = wh.status()
    return doc

