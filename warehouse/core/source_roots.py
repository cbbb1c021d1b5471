"""Whether each source's root folder is there: `ok`, `absent`, `unavailable` or `off` (spec FR-9).

A root given by a flag, an env var or a setting that does not exist is a mistake to report
(`KNOWLEDGE_SOURCE_UNAVAILABLE`: a typo must not look like an empty source). A root that was never
configured and is not at its platform default is simply `absent`. Skills and code are found through
the DSH home (its skills folder, its workspace registry), so they share its state when it is missing
(skills of other roots are not re-read then: a run must not drop the DSH home's skills as "vanished").
Only `is_dir` checks: cheap enough for every `akw status`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from warehouse.core.errors import Code
from warehouse.core.paths import Paths, tool_homes
from warehouse.core.settings import Settings

FLAGS = {"dsh": "harness", "autoclaw": "autoclaw", "skills": "skills", "code": "code",
         "claude_code": "claude_code", "codex": "codex"}
TOOL_HOMES = {"claude_code": ("Claude Code home", "CLAUDE_CONFIG_DIR"), "codex": ("Codex home", "CODEX_HOME")}


@dataclass(frozen=True)
class RootState:
    source: str
    state: str  # ok | absent | unavailable | off
    root: str
    message: str | None = None
    fix: str | None = None

    @property
    def readable(self) -> bool:
        return self.state == "ok"

    def error(self) -> dict[str, Any]:
        return {"code": Code.SOURCE_UNAVAILABLE.value, "source": self.source, "unit": self.source,
                "message": self.message or "", "fix": self.fix}

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in {"state": self.state, "root": self.root, "message": self.message,
                                  "fix": self.fix}.items() if v is not None}


def _root(source: str, path: Path, explicit: bool, what: str, env: str, flag: str) -> RootState:
    if path.is_dir():
        return RootState(source, "ok", str(path))
    if not explicit:
        return RootState(source, "absent", str(path))
    why = "is not a folder" if path.exists() else "does not exist"
    return RootState(source, "unavailable", str(path), f"{what} {path} {why}",
                     f"point {env} (or {flag}) at the existing folder, or unset it")


def root_states(paths: Paths, settings: Settings) -> dict[str, RootState]:
    """The root state of every source, in extract order."""
    dsh = _root("dsh", paths.dsh_home, paths.dsh_explicit, "DSH home", "DSH_HOME", "--dsh-home")
    ac = _root("autoclaw", paths.autoclaw_root, paths.autoclaw_explicit, "AutoClaw root", "AUTOCLAW_ROOT",
               "--autoclaw-root")
    extra = [Path(d).expanduser() for d in settings.sources.extra_skill_dirs]
    extra += [home / "skills" for name, home in tool_homes(paths).items()
              if getattr(settings.sources, name) is not False]
    if dsh.state != "unavailable" and (dsh.state == "ok" or ac.state == "ok" or any(p.is_dir() for p in extra)):
        skills = RootState("skills", "ok", str(paths.dsh_home / "skills"))
    else:
        skills = RootState("skills", dsh.state, str(paths.dsh_home / "skills"), dsh.message, dsh.fix)
    code = RootState("code", dsh.state, str(paths.dsh_home / "storages" / "workspace.json"), dsh.message, dsh.fix)
    out = {"dsh": dsh, "autoclaw": ac, "skills": skills, "code": code}
    for name, (what, env) in TOOL_HOMES.items():  # `auto`: read when there; `true`: missing is an error
        out[name] = _root(name, tool_homes(paths)[name], getattr(settings.sources, name) is True, what, env,
                          f"sources.{name}=auto")
    for name, flag in FLAGS.items():
        if getattr(settings.sources, flag) is False:
            out[name] = RootState(name, "off", out[name].root)
    return out


def forgettable(states: dict[str, RootState]) -> list[str]:
    """Sources `reindex --mode full` may forget and re-read: readable, and no root they draw on missing
    (skills come from the DSH home and the AutoClaw accounts too; forgetting them while one of those is
    missing would drop that root's skills for good)."""
    missing = {n for n, r in states.items() if r.state == "unavailable"}
    return [n for n, r in states.items() if r.readable and not (n == "skills" and missing & {"dsh", "autoclaw"})]
