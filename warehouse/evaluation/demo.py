"""`akw demo`: generated data indexed, then the user journeys the spec's scenarios name (UJ-1..UJ-5).

It drives the API it is handed (`Warehouse`, as eval does), so it sits below the API in the tree and
imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warehouse.core.language import Lang, output_language
from warehouse.search.request import search_request

if TYPE_CHECKING:
    from warehouse.extract.base import Progress

# the manager's story in spec §15's order: find the agent → open the skill → hand over the task, then what
# the warehouse knows about a topic and how the index itself is doing; each journey's title is its question
JOURNEYS = {
    "UJ-1": "Who already migrated iya.ru to the new server?",
    "UJ-2": "Everything about the deploy-iya-ru skill, for this deployment task",
    "UJ-3": "Hand this task to the best performer (a dry run, then a commit)",
    "UJ-4": "What do we know about TLS certificates?",
    "UJ-5": "Is the index healthy, and when does it run next?",
}
DEMO_WHO_QUERY = "Кто уже занимался переносом сайта iya.ru на новый сервер?"
DEMO_SKILL, DEMO_SKILL_TASK = "deploy-iya-ru", "перенести сайт iya.ru на новый сервер"
DEMO_TOPIC_QUERY = "what do we know about renewing TLS certificates"
DEMO_DISPATCH = {
    "schema": "knowledge.dispatch/v1",
    "dispatch_id": "demo-uj3-mysql-access",
    "task": {"title": "Restore MySQL root access on 176.99.5.35",
             "text": "root gets ERROR 1045 on 176.99.5.35; restore access with mysql-access-restore",
             "acceptance": ["root can log in with the new password", "no database is lost"],
             "constraints": ["do not restart production MySQL during business hours"]},
    "target": "auto",
}
# what to try next, printed after the journeys (commands as a user types them, with the demo's env)
DEMO_NEXT_STEPS = (
    ("the apps", "pip install -e '.[apps]' && marimo run notebooks/search.py   (settings, explore, eval, bench "
                 "too: docs/notebooks.md)"),
    ("agents", "pip install -e '.[mcp]' && akw mcp   (the knowledge_* tools over MCP stdio: docs/mcp.md)"),
    ("your own data", "akw reindex   (finds ~/.claude and ~/.codex; DSH_HOME / AUTOCLAW_ROOT for the others: README)"),
)

DEMO_RETENTION_DAYS = 36500  # the demo's generated sessions are dated 2026-09 and must not age out
# the demo's own Claude Code and Codex homes (`out/claude`, `out/codex`), indexed beside DSH and AutoClaw
DEMO_CLAUDE_CODE_SESSIONS = 6
DEMO_CODEX_SESSIONS = 4



def demo_language(setting: str) -> Lang:
    """The demo's one language: `ui.language` when fixed, else the locale's (core/language)."""
    return output_language(setting)


def journey(uj: str, kind: str, result: dict[str, Any]) -> dict[str, Any]:
    """One journey of the demo's document: its id, its question (the title), what kind of answer, the answer."""
    return {"id": uj, "question": JOURNEYS[uj], "kind": kind, "result": result}


def run_demo(cls: Any, out: Path, sessions: int, seed: int, progress: Progress | None = None,
             log: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Generate into `out` (unless present), index, then the five journeys in the story's order: who did it
    (UJ-1), the skill card answering the task (UJ-2), the hand-over as a dry run and a confirmed commit with
    its outbox package (UJ-3), a topic (UJ-4) and the index's status (UJ-5); the demo's home is `out/akw-home`.
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
    # one language for the whole demo (issue 28): its questions are the demo's, not typed by the person, so
    # `auto` means the locale here, for every journey's texts (in memory only: the config file keeps `auto`)
    wh.settings.ui.language = demo_language(wh.settings.ui.language)
    doc: dict[str, Any] = {"reindex": wh.reindex(progress=progress)}
    doc["env"] = {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
                  "AKW_HOME": str(wh.paths.home), "CLAUDE_CONFIG_DIR": str(wh.paths.claude_home),
                  "CODEX_HOME": str(wh.paths.codex_home)}
    who = journey("UJ-1", "search", wh.search(search_request(DEMO_WHO_QUERY, "auto", 6)))
    skill = journey("UJ-2", "skill", wh.get_skill(DEMO_SKILL, task=DEMO_SKILL_TASK))
    plan = wh.dispatch({**DEMO_DISPATCH, "dry_run": True}, requested_by="demo")
    commit = wh.dispatch({**DEMO_DISPATCH, "dry_run": False, "commit": True, "confirm": True}, requested_by="demo")
    handover = journey("UJ-3", "dispatch", {"dry_run": plan, "commit": commit,
                                            "outbox": wh.dispatch_show(DEMO_DISPATCH["dispatch_id"])})
    topic = journey("UJ-4", "search", wh.search(search_request(DEMO_TOPIC_QUERY, "auto", 6)))
    doc["journeys"] = [who, skill, handover, topic, journey("UJ-5", "status", wh.status())]
    doc["next_steps"] = [{"what": what, "command": command} for what, command in DEMO_NEXT_STEPS]
    return doc
