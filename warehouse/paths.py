"""Where things live: source roots and the warehouse home, from flags, then env vars, then defaults."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Paths:
    dsh_home: Path
    autoclaw_root: Path
    home: Path

    @classmethod
    def resolve(
        cls,
        dsh_home: str | Path | None = None,
        autoclaw_root: str | Path | None = None,
        home: str | Path | None = None,
    ) -> Paths:
        dsh = Path(dsh_home or os.environ.get("DSH_HOME") or Path.home() / ".dsh").expanduser()
        ac = autoclaw_root or os.environ.get("AUTOCLAW_ROOT")
        ac_path = Path(ac).expanduser() if ac else default_autoclaw_root()
        akw = home or os.environ.get("AKW_HOME") or dsh / "storages" / "agent-knowledge"
        return cls(dsh_home=dsh.absolute(), autoclaw_root=ac_path.absolute(), home=Path(akw).expanduser().absolute())

    # -- warehouse-owned locations ------------------------------------------------
    @property
    def config_file(self) -> Path:
        return self.home / "config.yaml"

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
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            pass
        os.chmod(d, 0o700)
    if path not in missing and not path.is_symlink():
        os.chmod(path, 0o700)
    return path
