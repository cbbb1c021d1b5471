"""Generated data sets and warehouse homes for eval and bench: build once, reuse while unchanged.

A data folder holds the generator's output (`dsh/`, `autoclaw/`, `workspaces/`, `manifest.json`)
plus warehouse homes named `akw-*` that belong to eval/bench. The generator output is a source:
it is only read; regenerating (other seed or size) also drops the homes built over the old data.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.home import access_counter

REPO = Path(__file__).resolve().parents[2]
REAL_SOURCES = ("anthropic", "superpowers")


def default_data_dir(purpose: str, sessions: int, seed: int) -> Path:
    """A reusable per-size/seed folder under the system temp dir (e.g. /tmp/akw-eval/s24-seed7)."""
    return Path(tempfile.gettempdir()) / f"akw-{purpose}" / f"s{sessions}-seed{seed}"


def ensure_generated(out: Path, sessions: int, seed: int, events: int | None = None, claude_code: int = 0,
                     codex: int = 0) -> dict[str, Any]:
    """Return the manifest of `out`, generating it first unless it was made with the same arguments
    by this version of the generator (`claude_code`, `codex`: sessions of those tools' homes too)."""
    import akw_fixtures

    out = Path(out).absolute()
    manifest_file = out / "manifest.json"
    want = {"sessions": sessions, "seed": seed, "events": events if events is not None else sessions * 60,
            "generator": akw_fixtures.fingerprint()}  # data of another generator version is made anew
    if manifest_file.exists():
        manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
        counts = manifest.get("counts", {})
        tools = (counts.get("claude_code_sessions", 0), counts.get("codex_sessions", 0))
        if all(manifest.get(k) == v for k, v in want.items()) and tools == (claude_code, codex):
            return manifest
    for home in sorted(out.glob("akw-*")):
        shutil.rmtree(home, ignore_errors=True)
    return akw_fixtures.generate(out, sessions=sessions, seed=seed, events=events, claude_code_sessions=claude_code,
                                 codex_sessions=codex)


class Home(Protocol):
    """What eval needs of a warehouse: `warehouse.api.Warehouse` (passed in by the API, which sits above)."""

    def reindex(self, mode: str = ...) -> dict[str, Any]: ...

    def search(self, request: dict[str, Any]) -> dict[str, Any]: ...


Opener = Callable[[Paths, Settings], Home]
# eval's homes index generated data with fixed dates (akw_fixtures: 2026-09) and real trajectories:
# retention must not empty the golden set as the calendar moves on
FIXTURE_RETENTION_DAYS = 36_500


def open_home(opener: Opener, data: Path, name: str, extra_skill_dirs: list[Path] | None = None,
              dsh_home: Path | None = None, semantic: bool = False) -> Home:
    """A warehouse over `data`'s sources with its own home `data/<name>`; extra skill dirs go to its config,
    and so does `semantic.enabled` when `semantic` (a semantic home is a home of its own: `<name>-sem`)."""
    data = Path(data).absolute()
    # the tools' homes of the data folder (`claude/`, `codex/`), never this machine's ~/.claude, ~/.codex
    paths = Paths.resolve(dsh_home or data / "dsh", data / "autoclaw", data / (f"{name}-sem" if semantic else name),
                          claude_home=data / "claude", codex_home=data / "codex")
    settings = Settings.load(paths.config_file)
    if settings.retention_days < FIXTURE_RETENTION_DAYS:  # generated data is dated 2026-09: keep it all
        settings = settings.with_value("retention_days", str(FIXTURE_RETENTION_DAYS))
        settings.save(paths.config_file)
    if settings.access.count_hits:  # golden queries are not usage: counted, they would move the trust
        settings = settings.with_value("access.count_hits", "false")  # prior from one eval run to the next
        settings.save(paths.config_file)
    for stale in access_counter.counter_file(paths).parent.glob("counter.sqlite*"):  # hits of an older run
        stale.unlink()
    if semantic and not settings.semantic.enabled:
        settings = settings.with_value("semantic.enabled", "true")
        settings.save(paths.config_file)
    if extra_skill_dirs is not None:
        wanted = json.dumps([str(Path(d).absolute()) for d in extra_skill_dirs])
        settings = settings.with_value("sources.extra_skill_dirs", wanted)  # as `akw config set` does
        settings.save(paths.config_file)
    return opener(paths, settings)


def realdata_dir(repo: Path = REPO) -> Path | None:
    """<repo>/../shared/realdata/skills when both real skill collections are there, else None."""
    root = (repo / ".." / "shared" / "realdata" / "skills").resolve()
    return root if all((root / s).is_dir() for s in REAL_SOURCES) else None


def realdata_trajectories() -> Path | None:
    """fixtures/realdata/trajectories when the real SWE-agent trajectories are there, else None."""
    from akw_fixtures.realdata import convert

    return convert.TRAJECTORIES if convert.available() else None


def ensure_realdata(out: Path, src: Path) -> dict[str, Any]:
    """The real trajectories converted into a DSH home under `out` (once per data folder); its manifest."""
    from akw_fixtures.realdata.convert import ensure_converted

    return ensure_converted(out, src)


def transcripts_dir(repo: Path = REPO) -> Path | None:
    """<repo>/../shared/realdata/transcripts when the real agent transcripts are there, else None."""
    from akw_fixtures.realdata import transcripts

    root = (repo / ".." / "shared" / "realdata" / "transcripts").resolve()
    return root if transcripts.available(root) else None


def ensure_transcripts(out: Path, src: Path) -> dict[str, Any]:
    """The real transcripts converted into a DSH home under `out` (read where they lie, converted once
    per data folder and fingerprint); its manifest."""
    from akw_fixtures.realdata.transcripts import ensure_converted

    return ensure_converted(out, src)


def agents_dir(repo: Path = REPO) -> Path | None:
    """<repo>/../shared/realdata/agents when the real Claude Code and Codex samples are there, else None."""
    from akw_fixtures.realdata import agents

    root = (repo / ".." / "shared" / "realdata" / "agents").resolve()
    return root if agents.available(root) else None


def ensure_agents(out: Path, src: Path) -> dict[str, Any]:
    """The real Claude Code and Codex samples laid out in their tools' folders under `out` (copied once per
    data folder and fingerprint); its manifest."""
    from akw_fixtures.realdata.agents import ensure_laid_out

    return ensure_laid_out(out, src)


def real_skill_dirs(root: Path) -> list[Path]:
    return [root / s for s in REAL_SOURCES]


def real_skill_names(root: Path) -> set[str]:
    """Skill names in the real collections: the front-matter `name`, else the folder name."""
    names = set()
    for base in real_skill_dirs(root):
        for skill_md in sorted(base.glob("*/SKILL.md")):
            name = skill_md.parent.name
            for line in skill_md.read_text(encoding="utf-8").splitlines()[1:40]:
                if line.strip() == "---":
                    break
                if line.startswith("name:"):
                    name = line.split(":", 1)[1].strip().strip("\"'") or name
                    break
            names.add(name)
    return names


def dir_bytes(path: Path) -> int:
    """Bytes of regular files under `path` (links not followed)."""
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
