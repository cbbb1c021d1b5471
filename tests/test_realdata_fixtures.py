"""The real-data slice: SWE-agent trajectories converted into DSH sessions the extractor reads cleanly."""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl
import pytest
from akw_fixtures.realdata import convert

from warehouse.api import Warehouse
from warehouse.core.paths import Paths
from warehouse.evaluation import homes
from warehouse.evaluation.golden import Resolver, load_golden
from warehouse.evaluation.runner import DEFAULT_GOLDEN

pytestmark = pytest.mark.skipif(not convert.available(), reason="fixtures/realdata/trajectories is absent")


def _digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, Warehouse]:
    out = tmp_path_factory.mktemp("rd")
    m = convert.convert(out)
    wh = Warehouse.open(out / "dsh", out / "autoclaw", out / "akw-home")
    rep = wh.reindex()
    assert rep.get("errors") == [], rep.get("errors")
    return out, m, wh


def test_trajectories_are_small_and_licensed() -> None:
    trajs = convert.load()
    assert 4 <= len(trajs) <= 6
    assert sum(p.stat().st_size for p in convert.TRAJECTORIES.glob("*.json")) < 400_000
    readme = (convert.TRAJECTORIES.parent / "README.md").read_text(encoding="utf-8")
    assert "princeton-nlp/SWE-agent" in readme and "MIT" in readme
    for t in trajs:
        assert t["task"] and t["steps"] and t["source_path"] in readme
        assert all(len(s["observation"]) <= 1500 for s in t["steps"])


def test_converted_sessions_read_with_zero_bad_lines(converted: tuple[Path, dict, Warehouse]) -> None:
    out, m, _wh = converted
    paths = Paths(dsh_home=out / "dsh", autoclaw_root=out / "autoclaw", home=out / "akw-home")
    s = pl.read_parquet(paths.lake / "bronze" / "dsh" / "sessions" / "*.parquet")
    assert s.height == m["counts"]["dsh_sessions"] == len(convert.load())
    assert s["lines_bad"].sum() == 0 and not s["truncated_tail"].any()
    assert s["events"].sum() == m["counts"]["dsh_events_unique"]
    assert s["human_messages"].sum() == m["counts"]["dsh_human_messages"]


def test_a_real_task_text_is_searchable(converted: tuple[Path, dict, Warehouse]) -> None:
    _out, m, wh = converted
    resp = wh.search({"schema": "knowledge.search/v1", "query": "TimeDelta serialization precision"})
    sids = [i["session_id"] for i in resp["lanes"]["episodes"]["items"]]
    assert sids and sids[0] == m["trajectories"]["marshmallow-1867"]


def test_the_converter_is_deterministic(tmp_path: Path) -> None:
    a = convert.convert(tmp_path / "x")
    first = _digest(tmp_path / "x")
    b = convert.convert(tmp_path / "x")
    assert a == b and _digest(tmp_path / "x") == first
    other = convert.convert(tmp_path / "y")
    assert other["trajectories"] == a["trajectories"] and other["fingerprint"] == a["fingerprint"]
    assert convert.ensure_converted(tmp_path / "x") == a  # unchanged input: reused, not rewritten


def test_golden_loads_with_the_real_data_slice(converted: tuple[Path, dict, Warehouse]) -> None:
    _out, m, _wh = converted
    qs = [q for q in load_golden(DEFAULT_GOLDEN).queries if q.slice == "real_data"]
    scored = [q for q in qs if q.kind != "empty"]
    assert len(scored) >= 20 and sum(q.kind == "empty" for q in qs) >= 3
    assert {q.lang for q in qs} == {"en", "ru"}
    r = Resolver(m)
    for q in scored:  # every expectation resolves against the converted home's manifest
        assert r.resolve(q).problem is None, q.id
    assert homes.realdata_trajectories() == convert.TRAJECTORIES
