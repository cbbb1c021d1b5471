"""Settings: spec §8.4 defaults, YAML file, env overrides, `akw config` errors that name the key."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from warehouse.core.errors import KnowledgeError
from warehouse.core.settings import Settings


def test_defaults_match_spec(tmp_path: Path) -> None:
    s = Settings.load(tmp_path / "none.yaml", env={})
    assert s.enabled is True
    assert s.sources.harness and s.sources.autoclaw and s.sources.skills
    assert s.schedule.mode == "twice_daily" and s.schedule.times == ["03:00", "15:00"]
    assert s.schedule.catch_up == "latest" and s.schedule.stale_after_hours == 24
    assert s.retention_days == 180 and s.redact_secrets is True
    assert s.semantic.enabled is False and s.semantic.provider == "local"
    assert s.dispatch.require_confirmation is True


def test_yaml_file_and_env_override(tmp_path: Path) -> None:
    f = tmp_path / "config.yaml"
    f.write_text("agent-knowledge:\n  retention_days: 30\n  exclude:\n    sessions: [s-1]\n")
    s = Settings.load(f, env={"AKW_SCHEDULE__TIMES": '["04:30"]'})
    assert s.retention_days == 30
    assert s.exclude.sessions == ["s-1"]
    assert s.schedule.times == ["04:30"]


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        ("schedule.timez", "1", "schedule.timez"),
        ("nope", "1", "nope"),
        ("retention_days", "0", "retention_days"),
        ("schedule.times", '["25:00"]', "schedule.times"),
        ("enabled.deeper", "1", "enabled.deeper"),
    ],
)
def test_bad_values_name_the_key(key: str, value: str, named: str) -> None:
    with pytest.raises(KnowledgeError) as e:
        Settings().with_value(key, value)
    assert e.value.code == "KNOWLEDGE_CONFIG_INVALID"
    assert e.value.details["key"] == named


def test_unknown_key_in_file_is_rejected(tmp_path: Path) -> None:
    f = tmp_path / "config.yaml"
    f.write_text("agent-knowledge:\n  retension_days: 3\n")
    with pytest.raises(KnowledgeError) as e:
        Settings.load(f, env={})
    assert e.value.details["key"] == "retension_days"


def _akw(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "warehouse", *args], capture_output=True, text=True, timeout=60)


def test_cli_config_set_show_roundtrip(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    r = _akw("config", "set", "retention_days=45", "exclude.workspaces=[ws-a]", "--home", home, "--json")
    assert r.returncode == 0, r.stderr
    r = _akw("config", "show", "--home", home, "--json")
    doc = json.loads(r.stdout)
    assert doc["agent-knowledge"]["retention_days"] == 45
    assert doc["agent-knowledge"]["exclude"]["workspaces"] == ["ws-a"]
    assert (Path(home) / "config.yaml").stat().st_mode & 0o777 == 0o600


def test_cli_config_set_bad_key_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "h"
    r = _akw("config", "set", "schedule.timez=1", "--home", str(home), "--json")
    assert r.returncode != 0
    doc = json.loads(r.stdout)
    assert doc["errors"][0]["code"] == "KNOWLEDGE_CONFIG_INVALID"
    assert doc["errors"][0]["key"] == "schedule.timez"
    assert not (home / "config.yaml").exists()


def test_yaml_is_read_with_a_safe_loader() -> None:
    """Config values, SKILL.md front matter and golden sets go through libyaml's safe loader when PyYAML has it,
    and no loader there builds a Python object from a tag."""
    import yaml

    from warehouse.core import yaml_load

    assert yaml_load._LOADER is (yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader)
    assert yaml_load.safe_load("a: [1, two]\nb: {c: true}") == {"a": [1, "two"], "b": {"c": True}}
    with pytest.raises(yaml.YAMLError):
        yaml_load.safe_load("!!python/object/apply:os.system ['echo owned']")
