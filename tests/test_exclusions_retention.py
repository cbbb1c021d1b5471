"""Exclusions of each kind applied at extract (and purging what an earlier run indexed), and retention
measured against an injected clock (`AKW_NOW`): the generated fixtures have fixed 2026-09 dates."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.core.settings import Settings


@pytest.fixture(scope="module")
def base(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """{"wh": a private copy of the shared small home, "src": its generated sources}."""
    return {"wh": small.copy(tmp_path_factory.mktemp("exclude")), "src": small.src}


def copy(base: dict[str, Any], tmp_path: Path, settings: Settings | None = None) -> Warehouse:
    shutil.copytree(base["wh"].paths.home, tmp_path / "akw")
    paths = Warehouse.open(base["src"] / "dsh", base["src"] / "autoclaw", tmp_path / "akw").paths
    return Warehouse(paths, settings or Settings())


def one(wh: Warehouse, sql: str) -> Any:
    return wh.sql(sql)["rows"][0][0]


# unit states (`akw sources` lists excluded/expired units by id) and the workspace registry (a session
# list) name units by design; content tables must not hold them. `akw forget` removes even those.
BY_DESIGN = ("bronze/meta/", "bronze/dsh/workspaces/")


def lake_holds(wh: Warehouse, needle: str) -> list[str]:
    """Content files of the lake holding `needle` in any column (read back: pages are compressed)."""
    return [rel for p in sorted(wh.paths.lake.rglob("*.parquet"))
            if not (rel := p.relative_to(wh.paths.lake).as_posix()).startswith(BY_DESIGN)
            and needle in json.dumps(pq.read_table(p).to_pylist(), default=str, ensure_ascii=False)]


# kind -> (setting value from the base index, SQL that must count 0 after, needle absent from the lake)
def _cases(wh: Warehouse) -> dict[str, tuple[dict[str, list[str]], str, str | None]]:
    ws_id, ws_path = wh.sql("SELECT workspace_id, workspace_path FROM ak_document_workspace "
                            "WHERE workspace_path IS NOT NULL ORDER BY workspace_id LIMIT 1")["rows"][0]
    dsh = one(wh, "SELECT min(session_id) FROM stg_dsh_sessions WHERE actor_kind = 'root_session'")
    ac = one(wh, "SELECT min(session_id) FROM ak_episode WHERE source = 'autoclaw'")
    agent_actor, agent = wh.sql("SELECT actor_id, agent_id FROM ak_actor WHERE kind = 'autoclaw_agent' "
                                "AND episodes > 0 ORDER BY actor_id LIMIT 1")["rows"][0]
    root = one(wh, "SELECT min(actor_id) FROM ak_actor WHERE kind = 'root_session'")
    return {
        "workspace": ({"workspaces": [ws_id]}, f"SELECT count(*) FROM ak_document WHERE workspace_id = '{ws_id}'",
                      ws_id),
        "path": ({"paths": [ws_path]}, f"SELECT count(*) FROM ak_document WHERE kind = 'chunk' AND "
                                       f"workspace_path = '{ws_path}'", None),
        "session-dsh": ({"sessions": [dsh]}, f"SELECT count(*) FROM ak_document WHERE session_id = '{dsh}'", dsh),
        "session-autoclaw": ({"sessions": [ac]}, f"SELECT count(*) FROM ak_document WHERE session_id = '{ac}'", ac),
        "actor-autoclaw": ({"actors": [agent]}, f"SELECT count(*) FROM ak_actor WHERE actor_id = '{agent_actor}'",
                           None),
        "actor-harness": ({"actors": [root]}, f"SELECT count(*) FROM ak_document WHERE actor_id = '{root}'",
                          root.rsplit(":", 1)[-1]),
        "file-pattern": ({"file_patterns": ["*.md"]},
                         "SELECT count(*) FROM ak_document WHERE kind = 'chunk' AND path LIKE '%.md'", None),
    }


CASES = ["workspace", "path", "session-dsh", "session-autoclaw", "actor-autoclaw", "actor-harness", "file-pattern"]


@pytest.mark.parametrize("case", CASES)
def test_an_added_exclusion_purges_at_the_next_run(base, tmp_path: Path, case: str) -> None:
    exclude, gone_sql, needle = _cases(base["wh"])[case]
    assert one(base["wh"], gone_sql) > 0  # indexed before
    wh = copy(base, tmp_path, Settings.model_validate({"exclude": exclude}))
    report = wh.reindex()  # incremental: the exclusion alone must purge
    assert report["outcome"] == "published"
    assert one(wh, gone_sql) == 0
    if needle:
        assert lake_holds(wh, needle) == [], "excluded content still in the lake"
    assert one(wh, "SELECT count(*) FROM ak_document") > 0  # only the excluded part went


def _ms(ts: Any) -> int:
    return int(datetime.fromisoformat(str(ts)).timestamp() * 1000)


def test_retention_drops_old_items_at_the_next_run_and_says_how_many(base, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    src = base["wh"]
    lasts = sorted({datetime.fromisoformat(str(t)).astimezone(UTC).date() for (t,) in
                    src.sql("SELECT last_time FROM stg_dsh_sessions")["rows"]})
    assert len(lasts) >= 2, "fixture sessions end on one day: pick another seed"
    cut_day = lasts[len(lasts) // 2]  # sessions ending before this day are out of the window
    now = datetime(cut_day.year, cut_day.month, cut_day.day, 12, tzinfo=UTC) + timedelta(days=30)
    wh = copy(base, tmp_path, Settings.model_validate({"retention_days": 30}))
    monkeypatch.setenv("AKW_NOW", now.isoformat())
    report = wh.reindex()
    cutoff = report["extract"]["retention"]["cutoff_ms"]
    old = [s for s, t in src.sql("SELECT session_id, last_time FROM stg_dsh_sessions")["rows"] if _ms(t) < cutoff]
    kept = [s for s, t in src.sql("SELECT session_id, last_time FROM stg_dsh_sessions")["rows"] if _ms(t) >= cutoff]
    assert old and kept
    dsh = {s["source"]: s["units"]["expired"] for s in report["extract"]["sources"]}
    assert dsh["dsh"] == len(old)
    assert report["extract"]["retention"]["dropped"] == sum(dsh.values()) >= len(old)
    left = {s for (s,) in wh.sql("SELECT session_id FROM stg_dsh_sessions")["rows"]}
    assert left == set(kept)
    assert all(lake_holds(wh, s) == [] for s in old)
    again = wh.reindex()  # the next run counts nothing new and changes nothing
    assert again["outcome"] == "noop" and again["extract"]["retention"]["dropped"] == 0
    # far in the future everything from the sessions is gone; back at the suite's "now" it returns
    monkeypatch.setenv("AKW_NOW", (now + timedelta(days=3650)).isoformat())
    wh.reindex()
    assert one(wh, "SELECT count(*) FROM ak_document WHERE source IN ('harness', 'autoclaw') "
                   "AND kind <> 'actor'") == 0
    monkeypatch.setenv("AKW_NOW", "2026-12-01T00:00:00Z")  # tests/conftest.py's "now"
    back = Warehouse(wh.paths, Settings())
    back.reindex()
    assert one(back, "SELECT count(*) FROM ak_document") == one(src, "SELECT count(*) FROM ak_document")
