"""Honest states (issue 13): missing roots, absent sources, the default home, killed runs, vanished sources."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import akw_fixtures
import pytest

from warehouse.api import Warehouse
from warehouse.core.paths import Paths

AKW = [sys.executable, "-m", "warehouse"]


def _env(**kv: str | Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DSH_HOME", "AUTOCLAW_ROOT", "AKW_HOME")}
    env.update({k: str(v) for k, v in kv.items() if v is not None})
    return env


def akw(*args: str, env: dict[str, str], timeout: float = 300) -> tuple[int, dict[str, Any]]:
    p = subprocess.run([*AKW, *args, "--json"], env=env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, json.loads(p.stdout)


@pytest.fixture(scope="module")
def src(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("states")
    akw_fixtures.generate(out, sessions=6, seed=11)
    return out


def test_a_mistyped_dsh_home_is_unavailable_and_never_gets_a_warehouse(tmp_path: Path) -> None:
    typo = tmp_path / "no-such-dsh"
    data = tmp_path / "xdg"
    env = _env(DSH_HOME=typo, AUTOCLAW_ROOT=tmp_path / "no-such-autoclaw", XDG_DATA_HOME=data, HOME=tmp_path)
    for _ in range(2):  # the second run must not find a DSH home the first one created
        rc, doc = akw("reindex", env=env)
        assert rc != 0 and doc["errors"][0]["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE"
        assert not typo.exists()
    assert (data / "agent-knowledge" / "state" / "runs.jsonl").exists()  # the user data folder holds it
    rc, st = akw("status", env=env)
    assert rc == 0 and st["state"] == "not_ready"
    assert st["roots"]["dsh"]["state"] == "unavailable" and "DSH_HOME" in st["fix"]
    assert "does not exist" in st["reason"]


def test_default_home_is_inside_a_real_dsh_home_only(tmp_path: Path, src: Path) -> None:
    assert Paths.resolve(src / "dsh", src / "autoclaw").home == src / "dsh" / "storages" / "agent-knowledge"
    bare = tmp_path / "empty-dsh"
    bare.mkdir()
    home = Paths.resolve(bare, src / "autoclaw").home
    assert not home.is_relative_to(bare)


def test_status_before_the_first_run_says_run_reindex(src: Path, tmp_path: Path) -> None:
    st = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "akw").status()
    assert st["state"] == "not_ready" and "akw reindex" in st["fix"]


def test_a_missing_autoclaw_root_is_unavailable_the_rest_is_indexed(src: Path, tmp_path: Path) -> None:
    wh = Warehouse.open(src / "dsh", tmp_path / "gone", tmp_path / "akw")
    rep = wh.reindex()
    assert rep["outcome"] == "published"
    by = {s["source"]: s for s in rep["extract"]["sources"]}
    assert by["autoclaw"]["root"] == "unavailable"
    assert by["autoclaw"]["errors"][0]["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE"
    assert by["dsh"]["root"] == "ok" and by["dsh"]["units"]["changed"] > 0
    st = wh.status()
    assert st["state"] == "degraded" and "AUTOCLAW_ROOT" in st["fix"]


def test_an_unconfigured_source_missing_at_its_default_is_absent(src: Path, tmp_path: Path) -> None:
    paths = Paths.resolve(src / "dsh", None, tmp_path / "akw")
    paths = Paths(paths.dsh_home, tmp_path / "nowhere", paths.home, autoclaw_explicit=False)
    wh = Warehouse(paths)
    rep = wh.reindex()
    by = {s["source"]: s for s in rep["extract"]["sources"]}
    assert by["autoclaw"]["root"] == "absent" and by["autoclaw"]["errors"] == []
    st = wh.status()
    assert st["roots"]["autoclaw"]["state"] == "absent"
    assert st["state"] == "ready", st["reason"]


def _built_copy(src: Path, tmp_path: Path) -> tuple[Path, Warehouse]:
    dst = tmp_path / "src"
    for name in ("dsh", "autoclaw"):
        shutil.copytree(src / name, dst / name, symlinks=True)
    wh = Warehouse.open(dst / "dsh", dst / "autoclaw", tmp_path / "akw")
    assert wh.reindex()["outcome"] == "published"
    assert wh.status()["state"] == "ready"
    return dst, wh


@pytest.mark.parametrize("vanish", ["dsh", "autoclaw"])
def test_a_vanished_source_is_degraded_and_keeps_its_last_good_data(src: Path, tmp_path: Path, vanish: str) -> None:
    dst, wh = _built_copy(src, tmp_path)
    docs = wh.status()["documents"]
    shutil.rmtree(dst / vanish)
    st = wh.status()
    assert st["state"] == "degraded" and st["roots"][vanish]["state"] == "unavailable"
    assert st["documents"] == docs
    rep = wh.reindex(mode="full")  # full forgets only what can be read again: the rest keeps its last good data
    assert rep["outcome"] in ("published", "noop")
    st = wh.status()
    assert st["state"] == "degraded" and st["documents"] == docs


def test_a_corrupt_registry_on_a_first_run_reports_the_code_source(src: Path, tmp_path: Path) -> None:
    dst = tmp_path / "src"
    for name in ("dsh", "autoclaw"):
        shutil.copytree(src / name, dst / name, symlinks=True)
    (dst / "dsh" / "storages" / "workspace.json").write_text("{not json", encoding="utf-8")
    wh = Warehouse.open(dst / "dsh", dst / "autoclaw", tmp_path / "akw")
    wh.reindex()
    st = wh.status()
    assert st["state"] == "degraded"
    assert {("code", "KNOWLEDGE_SOURCE_CORRUPT")} <= {(e["source"], e["code"]) for e in st["errors"]}


# -- a reindex killed during extract ---------------------------------------------------------------
def _new_parquet(home: Path, source: str, table: str, since: float) -> bool:
    d = home / "lake" / "bronze" / source / table
    try:
        return any(p.name != "_schema.parquet" and p.stat().st_mtime >= since for p in d.glob("*.parquet"))
    except FileNotFoundError:
        return False


KILL_POINTS = {  # where the run is when it is killed: the first new lake file of a source, or the build
    "extract:dsh": lambda h, t: _new_parquet(h, "dsh", "events", t),
    "extract:autoclaw": lambda h, t: _new_parquet(h, "autoclaw", "ac_accounts", t),
    "extract:code": lambda h, t: _new_parquet(h, "code", "code_chunks", t),
    "build": lambda h, t: any((h / "generations").glob(".building-*.duckdb")),
}


@pytest.mark.parametrize("point", sorted(KILL_POINTS))
def test_a_reindex_killed_mid_run_leaves_an_honest_status(src: Path, tmp_path: Path, point: str) -> None:
    dst, wh = _built_copy(src, tmp_path)
    before = wh.status()
    home = tmp_path / "akw"
    env = _env(DSH_HOME=dst / "dsh", AUTOCLAW_ROOT=dst / "autoclaw", AKW_HOME=home)
    p = subprocess.Popen([*AKW, "reindex", "--mode", "full", "--json"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    marker = home / "state" / "run.inprogress"
    deadline = time.monotonic() + 120
    while not marker.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    since = marker.stat().st_mtime if marker.exists() else time.time()
    while p.poll() is None and not KILL_POINTS[point](home, since) and time.monotonic() < deadline:
        time.sleep(0.001)
    if p.poll() is not None:
        pytest.skip(f"the run finished before the kill point {point}")
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    st = wh.status()
    assert st["generation"] == before["generation"] and st["index_rev"] == before["index_rev"]
    assert st["counts"] == before["counts"] and st["documents"] == before["documents"] > 0
    assert st["interrupted_run"] and not st["interrupted_run"]["alive"]
    assert [n["code"] for n in st["notes"]] == ["KNOWLEDGE_REINDEX_INTERRUPTED"]
    assert st["state"] in ("ready", "degraded")  # describes the published generation, with the note
    rep = wh.reindex()  # the next run finishes the work and the note goes away
    assert rep["outcome"] in ("published", "noop")
    st = wh.status()
    assert st["state"] == "ready" and not st["notes"] and st["documents"] == before["documents"]
    assert wh.search_text("mysql access", limit=3)["lanes"]["episodes"]["items"]
