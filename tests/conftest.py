"""Test-wide defaults and the homes the suite shares.

The generated fixtures are dated from 2026-09-01 (`akw_fixtures.common.BASE_MS`); retention
(`retention_days`, default 180) is measured against the run clock, so without a pinned clock every
test home would empty itself from 2027-03 on. `AKW_NOW` pins it (subprocesses inherit it); a test
about retention sets its own.

The session fixtures below build each shared corpus once per test session (per worker under
pytest-xdist); a module takes a private `copy()` of the built home (tests/homes.py).
"""

from __future__ import annotations

import os

import pytest
from homes import BuiltHome, built

FIXTURE_NOW = "2026-12-01T00:00:00Z"

os.environ.setdefault("AKW_NOW", FIXTURE_NOW)


@pytest.fixture(scope="session")
def home24(tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """24 sessions, seed 7, semantic lane off: the corpus the search, cards and dispatch tests ask of."""
    return built(tmp_path_factory.mktemp("home24"), sessions=24, seed=7)


@pytest.fixture(scope="session")
def home24_on(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """The same sources with the semantic lane on (skipped without the [semantic] extra)."""
    from homes import build_home

    from warehouse.core import embed

    if not embed.installed():
        pytest.skip("the [semantic] extra is not installed")
    home = tmp_path_factory.mktemp("home24-on") / "akw"
    build_home(home24.src, home, semantic=True)
    return BuiltHome(home24.src, home, home24.manifest)


@pytest.fixture(scope="session")
def small(tmp_path_factory: pytest.TempPathFactory) -> BuiltHome:
    """6 sessions, seed 3: the small home of the CLI, notebook, report, quality and lifecycle tests."""
    return built(tmp_path_factory.mktemp("small"), sessions=6, seed=3)
