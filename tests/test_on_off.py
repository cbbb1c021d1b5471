"""AC-1 on/off through the real CLI: disabled, every read and index command answers KNOWLEDGE_DISABLED
under --json; status still answers and says why; enabling a kept index resumes without a rebuild."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from cli_run import akw_json
from homes import BuiltHome

from warehouse.evaluation.demo import DEMO_DISPATCH


def akw(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any]]:
    """The real `akw` app in-process (tests/cli_run.py) over the home `env` names."""
    return akw_json(*args, env=env)


def hit_ids(doc: dict[str, Any]) -> list[str]:
    return [i["id"] for lane in sorted(doc["lanes"]) for i in doc["lanes"][lane].get("items", [])]


@pytest.fixture(scope="module")
def base(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """{"wh": a private copy of the shared small home, "src": its generated sources}."""
    return {"wh": small.copy(tmp_path_factory.mktemp("onoff")), "src": small.src}


@pytest.fixture
def env(base: dict[str, Any], tmp_path: Path) -> dict[str, str]:
    shutil.copytree(base["wh"].paths.home, tmp_path / "akw")
    return {"DSH_HOME": str(base["src"] / "dsh"), "AUTOCLAW_ROOT": str(base["src"] / "autoclaw"),
            "AKW_HOME": str(tmp_path / "akw")}


READS = [
    ["search", "mysql root access"],
    ["sql", "SELECT 1"],
    ["get", "episode", "ep:x"],
    ["dispatch", "list"],
    ["dispatch", "show", "demo"],
    ["sources"],
    ["reindex"],
    ["reindex", "--mode", "verify"],
    ["forget", "session", "s-1"],
]


@pytest.mark.parametrize("how", ["disable", "config"])
def test_disabled_reads_answer_disabled_and_enable_resumes_without_rebuild(env, how: str) -> None:
    _, before = akw(env, "status")
    assert before["state"] == "ready" and before["enabled"]
    _, hits = akw(env, "search", "mysql root access")
    assert hit_ids(hits)
    gens = sorted(p.name for p in (Path(env["AKW_HOME"]) / "generations").iterdir())
    request = Path(env["AKW_HOME"]).parent / "dispatch.json"
    request.write_text(json.dumps({**DEMO_DISPATCH, "dry_run": True}))
    code, _doc = akw(env, *(["disable"] if how == "disable" else ["config", "set", "enabled=false"]))
    assert code == 0
    for args in [*READS, ["dispatch", "--request", str(request)]]:
        code, out = akw(env, *args)
        assert code != 0, args
        assert [e["code"] for e in out["errors"]] == ["KNOWLEDGE_DISABLED"], (args, out)
    code, st = akw(env, "status")
    assert code == 0 and st["state"] == "disabled" and not st["enabled"] and st["next_run"] is None
    assert st["disabled"]["index_kept"] is True and "enabled" in st["disabled"]["reason"]
    code, on = akw(env, "enable")
    assert code == 0 and on["enabled"]
    assert on["status"]["index_rev"] == before["index_rev"] and on["status"]["state"] == "ready"
    assert sorted(p.name for p in (Path(env["AKW_HOME"]) / "generations").iterdir()) == gens  # nothing rebuilt
    code, again = akw(env, "search", "mysql root access")
    assert code == 0 and hit_ids(again) == hit_ids(hits)
    code, run = akw(env, "reindex")
    assert code == 0 and run["outcome"] == "noop"


def test_disable_with_delete_removes_the_index(env) -> None:
    code, doc = akw(env, "disable", "--delete-index")
    assert code == 0 and doc["index_kept"] is False and doc["deleted"]["generations"]["files"] >= 2
    home = Path(env["AKW_HOME"])
    assert not (home / "generations").exists() and not (home / "lake").exists()
    assert (home / "config.yaml").exists()
    _, st = akw(env, "status")
    assert st["state"] == "disabled" and st["disabled"]["index_kept"] is False and st["index_rev"] is None
    code, on = akw(env, "enable")
    assert code == 0 and on["status"]["state"] == "not_ready"
    code, run = akw(env, "reindex")
    assert code == 0 and run["outcome"] == "published"
