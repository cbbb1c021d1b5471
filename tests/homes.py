"""The generated homes the suite shares: built once per test session (conftest.py), copied per module.

A build is the slow part of most tests (generate, then extract → lake → models → lexical index, and the
vectors when the semantic lane is on), and most modules need the same corpus: the 24-session seed-7 one
the search, cards, dispatch, feedback and access tests ask their questions of, or the small 6-session
seed-3 one. `BuiltHome` is such a master build; a module takes `copy()` of it, a private home of its own
(homes are relocatable: nothing in them names the folder they live in), over the shared sources, which
no test writes (a test that changes sources copies them first).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import akw_fixtures

from warehouse.api import Warehouse
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings


@dataclass(frozen=True)
class BuiltHome:
    """Generated sources (`src/dsh`, `src/autoclaw`), their manifest and one built home over them."""

    src: Path
    home: Path
    manifest: dict[str, Any]

    def copy(self, dst: Path) -> Warehouse:
        """A private copy of the built home at `dst` (a folder that does not exist yet or is empty).

        Without `spill/`: the builder's per-process scratch folders are named after its pid, and the
        builder may be another xdist worker that is still alive, whose folder no sweep would remove."""
        top = str(self.home)
        shutil.copytree(self.home, dst, dirs_exist_ok=True, symlinks=True,
                        ignore=lambda d, names: ["spill"] if d == top and "spill" in names else [])
        return Warehouse.open(self.src / "dsh", self.src / "autoclaw", dst)


def generate(out: Path, sessions: int, seed: int) -> tuple[Path, dict[str, Any]]:
    return out, akw_fixtures.generate(out, sessions=sessions, seed=seed)


def build_home(src: Path, home: Path, semantic: bool = False) -> Warehouse:
    """Index `src` into `home` (semantic lane on or off through the home's own config file)."""
    if semantic:
        config = Paths.resolve(src / "dsh", src / "autoclaw", home).config_file
        Settings().with_value("semantic.enabled", "true").save(config)
    wh = Warehouse.open(src / "dsh", src / "autoclaw", home)
    assert wh.reindex()["outcome"] == "published"
    return wh


def built(root: Path, sessions: int, seed: int, semantic: bool = False) -> BuiltHome:
    src, manifest = generate(root / "src", sessions, seed)
    build_home(src, root / "akw", semantic)
    return BuiltHome(src, root / "akw", manifest)


def env_of(wh: Warehouse, **extra: str) -> dict[str, str]:
    """The environment that points `akw` at `wh`'s home and sources (plus `extra`, e.g. AKW_PRINCIPAL)."""
    return {"AKW_HOME": str(wh.paths.home), "DSH_HOME": str(wh.paths.dsh_home),
            "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root), **extra}


def q(wh: Warehouse, query: str, **kw: Any) -> dict[str, Any]:
    """One search request of `query` (extra request fields as keywords)."""
    return wh.search({"schema": "knowledge.search/v1", "query": query, **kw})
