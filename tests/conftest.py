"""Test-wide defaults.

The generated fixtures are dated from 2026-09-01 (`akw_fixtures.common.BASE_MS`); retention
(`retention_days`, default 180) is measured against the run clock, so without a pinned clock every
test home would empty itself from 2027-03 on. `AKW_NOW` pins it (subprocesses inherit it); a test
about retention sets its own.
"""

from __future__ import annotations

import os

FIXTURE_NOW = "2026-12-01T00:00:00Z"

os.environ.setdefault("AKW_NOW", FIXTURE_NOW)
