"""The throwaway PostgreSQL cluster of the team tests: the one `akw bench --team` uses (warehouse.team.scratch_pg)."""

from __future__ import annotations

import uuid

from warehouse.team.scratch_pg import Cluster, bindir_of_postgres

PASSWORD = "team-test-" + uuid.uuid4().hex[:12]

__all__ = ["PASSWORD", "Cluster", "bindir_of_postgres"]
