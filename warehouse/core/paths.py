"""Where things live: source roots and the warehouse home, from flags, then env vars, then defaults."""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

AUTOCLAW_APP_DIRS = ("AutoClaw-oversea-official", "AutoClaw-official", "AutoClaw")


def _app_data() -> Path:
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support"
    return Path(os.environ.get("XDG_CONFIG_HOME", Path.home() / ".config"))


def default_autoclaw_root() -> Path:
    """First existing platform app-data folder of AutoClaw, else the preferred one."""
    base = _app_data()
    for name in AUTOCLAW_APP_DIRS:
        if (base / name).exists():
            return base / name
    return base / AUTOCLAW_APP_DIRS[0]


def default_data_home() -> Path:
    """The user's data folder for the warehouse when no DSH home can hold it."""
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local")) / "agent-knowledge"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "agent-knowledge"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "agent-knowledge"


def default_claude_home() -> Path:
    """Claude Code's config folder: `CLAUDE_CONFIG_DIR` (Claude Code's own variable), else `~/.claude`."""
    return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").expanduser().absolute()


def default_codex_home() -> Path:
    """Codex CLI's home: `CODEX_HOME` (Codex's own variable), else `~/.codex`."""
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser().absolute()


def default_home(dsh_home: Path) -> Path:
    """`$DSH_HOME/storages/agent-knowledge` (spec 000/001) only in a real DSH home, one whose `storages/`
    DSH itself created; otherwise the user data folder. A mistyped `DSH_HOME` never gets a warehouse
    created inside it, which would make the typo look like an (empty) DSH home on the next run."""
    storages = dsh_home / "storages"
    if storages.is_dir() and not (storages / "agent-knowledge").is_symlink():
        return storages / "agent-knowledge"
    return default_data_home()


def tool_homes(paths: Paths) -> dict[str, Path]:
    """The agent tools' own homes by source name (`sources.<name>`, their extractor's lake source)."""
    return {"claude_code": paths.claude_home, "codex": paths.codex_home}


@dataclass(frozen=True)
class Paths:
    dsh_home: Path
    autoclaw_root: Path
    home: Path
    # whether a root was given (flag or env var): a given root that does not exist is an error,
    # a platform default that does not exist is an absent source
    dsh_explicit: bool = True
    autoclaw_explicit: bool = True
    # the tools' own homes (their own env vars): found when there, never an error when not (issue 26)
    claude_home: Path = field(default_factory=default_claude_home)
    codex_home: Path = field(default_factory=default_codex_home)

    @classmethod
    def resolve(
        cls,
        dsh_home: str | Path | None = None,
        autoclaw_root: str | Path | None = None,
        home: str | Path | None = None,
        claude_home: str | Path | None = None,
        codex_home: str | Path | None = None,
    ) -> Paths:
        dsh_given = dsh_home or os.environ.get("DSH_HOME")
        dsh = Path(dsh_given or Path.home() / ".dsh").expanduser().absolute()
        ac = autoclaw_root or os.environ.get("AUTOCLAW_ROOT")
        ac_path = Path(ac).expanduser() if ac else default_autoclaw_root()
        akw = home or os.environ.get("AKW_HOME") or default_home(dsh)
        tools = {k: Path(v).expanduser().absolute() for k, v in (("claude_home", claude_home),
                                                                    ("codex_home", codex_home)) if v}
        return cls(dsh_home=dsh, autoclaw_root=ac_path.absolute(), home=Path(akw).expanduser().absolute(),
                   dsh_explicit=bool(dsh_given), autoclaw_explicit=bool(ac), **tools)

    # -- warehouse-owned locations: the one list of what lives under the home (docs/architecture.md) --
    @property
    def config_file(self) -> Path:
        return self.home / "config.yaml"

    @property
    def writer_lock(self) -> Path:
        """flock of the one writer (reindex, forget, index delete)."""
        return self.home / "akw.lock"

    @property
    def schedule_lock(self) -> Path:
        """flock of the one schedule starter."""
        return self.home / "schedule.lock"

    @property
    def tombstones(self) -> Path:
        """Salted hashes of forgotten ids; outside `state/`, which a full reindex clears."""
        return self.home / "tombstones.json"

    @property
    def runs_log(self) -> Path:
        return self.state_dir / "runs.jsonl"

    @property
    def schedule_state(self) -> Path:
        """The schedule's last slots (what ran, what is due)."""
        return self.state_dir / "schedule.json"

    @property
    def run_marker(self) -> Path:
        """The run in progress; not *.json, which `reindex --mode full` clears."""
        return self.state_dir / "run.inprogress"

    @property
    def access_dir(self) -> Path:
        """The access counter and the trust table: beside the generations, never inside one."""
        return self.home / "access"

    @property
    def access_counter(self) -> Path:
        return self.access_dir / "counter.sqlite"

    @property
    def trust_store(self) -> Path:
        return self.access_dir / "trust.sqlite"

    @property
    def feedback_dir(self) -> Path:
        return self.home / "feedback"

    @property
    def feedback_log(self) -> Path:
        return self.feedback_dir / "feedback.jsonl"

    @property
    def feedback_lock(self) -> Path:
        return self.feedback_dir / ".lock"

    @property
    def team_dir(self) -> Path:
        """This machine's record of its last push to the team lake."""
        return self.home / "team"

    @property
    def team_push(self) -> Path:
        return self.team_dir / "push.json"

    @property
    def reports_dir(self) -> Path:
        """Where scheduled reports are written."""
        return self.home / "reports"

    @property
    def lake(self) -> Path:
        return self.home / "lake"

    @property
    def state_dir(self) -> Path:
        return self.home / "state"

    @property
    def generations(self) -> Path:
        return self.home / "generations"

    @property
    def outbox(self) -> Path:
        return self.home / "outbox"

    @property
    def logs(self) -> Path:
        return self.home / "logs"

    @property
    def spill(self) -> Path:
        return self.home / "spill"

    def ensure(self) -> None:
        """Create the warehouse folders private to the user (0700 whatever the umask, spec §6)."""
        for p in (self.home, self.lake, self.state_dir, self.logs):
            private_dir(p)


def private_dir(path: Path) -> Path:
    """`mkdir -p` where every folder this creates is 0700 whatever the umask (`os.makedirs` gives the
    intermediate ones the umask's mode); an existing `path` is made 0700 too."""
    missing: list[Path] = []
    p = path
    while not p.exists():
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):
            d.mkdir(mode=0o700)
        os.chmod(d, 0o700)
    if path not in missing and not path.is_symlink():
        os.chmod(path, 0o700)
    return path


def file_signature(path: Path) -> tuple[int, int, int] | None:
    """(inode, mtime_ns, size) of a file, None when it is missing: one stat tells a long-lived reader
    whether a file another process rewrites (the feedback log, the trust table) changed."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size
