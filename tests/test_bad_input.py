"""Issue 25, "bad input gets a coded answer": hostile request shapes and settings the probe sent through
the CLI, each of which was KNOWLEDGE_INTERNAL (or accepted, and every later reindex failed) before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import akw_json
from homes import BuiltHome, env_of

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError

DIGITS = "1" * 5000
DEEP = "[" * 20_000 + "]" * 20_000


@pytest.fixture(scope="module")
def wh(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return small.copy(tmp_path_factory.mktemp("bad-input") / "akw")


def coded(wh: Warehouse, *args: str, stdin: str | None = None) -> str:
    """The one error code of a `--json` run that must fail (exit 2: the caller's mistake)."""
    code, doc = akw_json(*args, env=env_of(wh), stdin=stdin)
    assert code == 2, doc
    [err] = doc["errors"]
    return err["code"]


def test_a_number_of_5000_digits_in_a_search_request_is_invalid(wh: Warehouse, tmp_path: Path) -> None:
    request = '{"schema": "knowledge.search/v1", "query": "mysql", "limit": ' + DIGITS + "}"
    with pytest.raises(KnowledgeError) as e:
        wh.search(request)
    assert e.value.code == Code.INVALID_REQUEST.value and "digits" in e.value.message
    (tmp_path / "req.json").write_text(request)
    assert coded(wh, "search", "--request", str(tmp_path / "req.json")) == Code.INVALID_REQUEST.value


@pytest.mark.parametrize("yes", [False, True])
def test_a_dispatch_task_nested_20000_deep_is_invalid(wh: Warehouse, yes: bool) -> None:
    request = '{"schema": "knowledge.dispatch/v1", "task": ' + DEEP + "}"
    with pytest.raises(KnowledgeError) as e:
        wh.dispatch(request)
    assert e.value.code == Code.INVALID_REQUEST.value
    args = ["dispatch", "--request", "-", *(["--yes"] if yes else [])]
    assert coded(wh, *args, stdin=request) == Code.INVALID_REQUEST.value
    digits = '{"schema": "knowledge.dispatch/v1", "task": {"title": "x", "text": "y"}, "limit": ' + DIGITS + "}"
    assert coded(wh, *args, stdin=digits) == Code.INVALID_REQUEST.value


@pytest.mark.parametrize("assignment", [
    "access.principals=" + "[" * 5000 + "]" * 5000,
    "retention_days=99999999999999999999",
    "retention_days=" + DIGITS,
    "index.memory_limit=1PB",
    "index.memory_limit=-1MB",
    "index.memory_limit=lots",
    "query.spill_limit=-2GB",
])
def test_settings_are_validated_when_set_and_nothing_is_written(wh: Warehouse, assignment: str) -> None:
    before = wh.paths.config_file.read_bytes() if wh.paths.config_file.exists() else None
    assert coded(wh, "config", "set", assignment) == Code.CONFIG_INVALID.value
    after = wh.paths.config_file.read_bytes() if wh.paths.config_file.exists() else None
    assert after == before


def test_a_valid_size_and_retention_are_taken_and_the_index_still_builds(wh: Warehouse) -> None:
    code, doc = akw_json("config", "set", "index.memory_limit=256MB", "retention_days=36500", env=env_of(wh))
    assert code == 0 and doc["agent-knowledge"]["index"]["memory_limit"] == "256MB"
    code, run = akw_json("reindex", env=env_of(wh))
    assert code == 0 and run["outcome"] in ("published", "noop"), json.dumps(run)[:500]
