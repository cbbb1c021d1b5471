"""Test-wide defaults and the homes the suite shares.

The generated fixtures are dated from 2026-09-01 (`akw_fixtures.common.BASE_MS`); retention
(`retention_days`, default 180) is measured against the run clock, so without a pinned clock every
test home would empty itself from 2027-03 on. `AKW_NOW` pins it (subprocesses inherit it); a test
about retention sets its own.

The session fixtures below build each shared corpus once per test run (once for all pytest-xdist
workers, under a file lock); a module takes a private `copy()` of the built home (tests/homes.py).
"""

from __future__ import annotations

import fcntl
import gc
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from homes import BuiltHome, build_home, built

FIXTURE_NOW = "2026-12-01T00:00:00Z"

os.environ.setdefault("AKW_NOW", FIXTURE_NOW)
# the agent tools' own homes (issue 26) are read when they exist: a test never reads this machine's
# ~/.claude or ~/.codex (a test of those sources points Paths at a folder of its own)
os.environ["CLAUDE_CONFIG_DIR"] = "/nonexistent/akw-tests/claude"
os.environ["CODEX_HOME"] = "/nonexistent/akw-tests/codex"


# The longest modules, longest first (seconds of one worker, measured in CI; tests/team/ needs PostgreSQL).
# `make test` runs three xdist workers with --dist loadfile, which hands out whole modules in collection order:
# starting with the long ones and ending with short ones keeps the workers finishing together instead
# of one waiting out a long module the other picked up last. Only the order changes, never what runs.
LONG_MODULES = ("test_forget", "test_team_lake", "test_mcp_server", "test_cli_contract", "test_quality",
                "test_hardening", "test_eval", "test_reindex", "test_notebooks", "test_states", "test_tool_histories",
                "test_schedule", "test_search", "test_team_forget", "test_team_access", "test_cards",
                "test_exclusions_retention", "test_generations", "test_dispatch", "test_access_mcp",
                "test_access_leak", "test_bench", "test_team_bench")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONG_MODULES)}
    items.sort(key=lambda it: rank.get(it.path.stem, len(rank)))  # stable: a module's own order is kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """What collection imported (the product, the SDKs, the browser driver) stays for the whole run:
    out of the cyclic GC's full passes, which otherwise walk it again and again in each worker."""
    gc.freeze()


def _shared(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], BuiltHome]) -> BuiltHome:
    """Build `name` once per test run where the workers' timing allows: under pytest-xdist the workers'
    temp folders share a parent; the first worker to need a corpus builds it there and a later one reuses
    it, while one that needs it during the other's build builds its own (waiting would idle a core on a
    CPU-bound suite). The folder is only read after (modules copy it, without its spill folders)."""
    base = factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-homes"
    root.mkdir(parents=True, exist_ok=True)
    folder, done = root / name, root / f"{name}.built"
    with open(root / f"{name}.lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # the other worker is building it right now: build a private one rather
            return build(factory.mktemp(name))  # than leave this core idle until it is done
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # a half-built one of a worker that died
            folder.mkdir()
            home = build(folder)
            done.write_text(json.dumps({"src": str(home.src), "home": str(home.home)}))
    paths = json.loads(done.read_text())
    src = Path(paths["src"])
    return BuiltHome(src, Path(paths["home"]), json.loads((src / "manifest.json").read_text(encoding="utf-8")))


@pytest.fixture(scope="session")
def home24(tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """24 sessions, seed 7, semantic lane off: the corpus the search, cards and dispatch tests ask of."""
    return _shared(tmp_path_factory, "home24", lambda d: built(d, sessions=24, seed=7))


def _semantic_on(base: BuiltHome, factory: pytest.TempPathFactory, name: str) -> BuiltHome:
    """`base`'s sources indexed again with the semantic lane on, shared as `name` (skipped without the
    [semantic] extra)."""
    from warehouse.core import embed

    if not embed.installed():
        pytest.skip("the [semantic] extra is not installed")

    def build(folder: Path) -> BuiltHome:
        build_home(base.src, folder / "akw", semantic=True)
        return BuiltHome(base.src, folder / "akw", base.manifest)

    return _shared(factory, name, build)


@pytest.fixture(scope="session")
def home24_on(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """The same sources with the semantic lane on (skipped without the [semantic] extra)."""
    return _semantic_on(home24, tmp_path_factory, "home24-on")


@pytest.fixture(scope="session")
def small(tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """6 sessions, seed 3: the small home of the CLI, notebook, report, quality and lifecycle tests."""
    return _shared(tmp_path_factory, "small", lambda d: built(d, sessions=6, seed=3))


@pytest.fixture(scope="session")
def small_on(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """The small home's sources with the semantic lane on (skipped without the [semantic] extra): the
    forget and prepared-statement tests of the vector side start from it instead of embedding it each."""
    return _semantic_on(small, tmp_path_factory, "small-on")
