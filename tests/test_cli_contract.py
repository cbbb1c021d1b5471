"""The `akw` CLI contract: hostile input gets coded errors, never tracebacks.

With `--json` every failure (option parsing included) is one `{"errors": [...]}` document on stdout and a
non-zero exit; user mistakes are `KNOWLEDGE_INVALID_REQUEST`, never `KNOWLEDGE_INTERNAL`.

Most checks run the Typer app in this process (`run`, tests/cli_run.py): the console script `akw` is
`warehouse.cli:app` itself (test_the_entry_point_is_the_typer_app), so argv parsing, the commands and the
JSON error contract are the same code, without the half second a new interpreter costs per call. An
exception nothing maps to fails the test outright there (the CLI would have printed a traceback).
These stay on the real executable (`akw`), because they need a process of their own:
- test_a_usage_error_through_the_installed_entry_point: the installed script, argv from `sys.argv`;
- test_undecodable_argument_bytes: bytes in argv, which only an OS exec delivers (as lone surrogates);
- test_a_closed_pipe_is_a_quiet_exit, test_piping_into_head: a stdout file descriptor whose reader is gone;
- test_version: the version the installed `akw` reports;
- test_cli_import_stays_light: what a fresh interpreter imports for `warehouse.cli`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from cli_run import Run, run
from homes import BuiltHome

import warehouse
from warehouse.api import search_request

AKW = Path(sys.executable).with_name("akw")
USER_CODES = {"KNOWLEDGE_INVALID_REQUEST", "KNOWLEDGE_QUERY_INVALID"}
PY_DICT = re.compile(r"\{'[^']*': ")  # the start of a Python dict repr


def akw(*args: str | bytes, stdin: bytes | None = None, env: dict[str, str] | None = None,
        stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(AKW), *args], input=stdin, stdout=stdout, stderr=subprocess.PIPE,
                          env={**os.environ, **(env or {})}, timeout=120, check=False)


def user_error(r: subprocess.CompletedProcess[bytes] | Run) -> dict[str, Any]:
    """Exactly one JSON error document on stdout, a user-error code, a non-zero exit, no traceback
    (of a real `akw` process or of an in-process `run`)."""
    if isinstance(r, Run):
        code, stdout, stderr = r.code, r.stdout, r.stderr
    else:
        code, stdout, stderr = r.returncode, r.stdout.decode("utf-8"), r.stderr.decode(errors="replace")
    assert code != 0
    assert "Traceback" not in stderr, stderr
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout[:500]
    doc = json.loads(lines[0])
    assert list(doc) == ["errors"] and len(doc["errors"]) == 1
    err = doc["errors"][0]
    assert err["code"] in USER_CODES and err["message"], err
    return err


@pytest.fixture(scope="module")
def home(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A tiny indexed warehouse; its locations as the environment the CLI reads."""
    wh = small.copy(tmp_path_factory.mktemp("cli"))
    return {"DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root),
            "AKW_HOME": str(wh.paths.home)}


# -- option parsing with --json ---------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ["search", "x", "--limit", "abc", "--json"],
    ["search", "x", "--limit", "9" * 5000, "--json"],
    ["search", "x", "--bogus", "--json"],
    ["fixtures", "generate", "--json"],  # missing required option
    ["sql", "--json"],  # missing required argument
    ["nosuchcommand", "--json"],
    ["feedback", "--useful", "--json"],  # missing result id
    ["schedule", "run-due", "--now", "yesterday", "--json"],
    ["daemon", "--tick", "0", "--json"],
], ids=["limit-abc", "limit-5000-digits", "unknown-option", "missing-option", "missing-argument", "no-command",
        "feedback-no-id", "schedule-bad-now", "daemon-bad-tick"])
def test_usage_errors_are_one_json_document(args: list[str]) -> None:
    user_error(run(*args))


def test_the_entry_point_is_the_typer_app() -> None:
    """What makes the in-process runs above the same code as `akw`: the script calls the app and nothing else."""
    [script] = [e for e in entry_points(group="console_scripts") if e.name == "akw"]
    assert script.value == "warehouse.cli:app"


def test_a_usage_error_through_the_installed_entry_point() -> None:
    """The installed `akw` script: argv from the process, the JSON usage error on its real stdout."""
    assert user_error(akw("search", "x", "--limit", "abc", "--json"))["field"] == "limit"


def test_usage_errors_without_json_stay_on_stderr() -> None:
    r = run("search", "x", "--limit", "abc")
    assert r.code == 2 and r.stdout == "" and "--limit" in r.stderr and "Traceback" not in r.stderr


def test_a_huge_limit_that_parses_is_still_a_request_error(home: dict[str, str]) -> None:
    assert user_error(run("search", "x", "--limit", "9" * 100, "--json", env=home))["field"] == "limit"


# -- user mistakes are coded ----------------------------------------------------------------
def test_missing_or_unreadable_request_file(tmp_path: Path, home: dict[str, str]) -> None:
    assert user_error(run("search", "--request", str(tmp_path / "nope.json"), "--json", env=home))["field"] == "request"
    assert user_error(run("search", "--request", str(tmp_path), "--json", env=home))["field"] == "request"


@pytest.mark.parametrize("cmd", [["fixtures", "generate", "--sessions", "1"], ["demo", "--sessions", "1"],
                                 ["eval", "--sessions", "1"], ["bench"]])
def test_unwritable_out_folder(cmd: list[str], tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    extra = {"eval": ["--generate", str(tmp_path / "data")], "bench": ["--work", str(tmp_path / "work")]}
    err = user_error(run(*cmd, *extra.get(cmd[0], []), "--out", str(blocker / "sub"), "--json"))
    assert err["field"] == "out"


# -- hostile text ----------------------------------------------------------------------------
@pytest.mark.parametrize("args", [
    [b"search", b"caf\xe9 \xff", b"--json"],
    [b"search", b"ok", b"--home", b"/tmp/\xff\xfe", b"--json"],
    [b"config", b"set", b"retention_days=\xe9", b"--json"],
], ids=["query", "path", "config-value"])
def test_undecodable_argument_bytes(args: list[bytes], home: dict[str, str]) -> None:
    user_error(akw(*args, env=home))


@pytest.mark.parametrize("stdin", [
    b'{"schema": "knowledge.search/v1", "query": "caf\xe9"}',  # Latin-1, not UTF-8
    b'{"schema": "knowledge.search/v1", "query": "caf\\udce9"}',  # a lone surrogate, JSON-escaped
    b"[" * 100_000 + b"]" * 100_000,  # RecursionError in the JSON decoder
    b'{"schema": "knowledge.search/v1", "query": "x", "filters": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001,
], ids=["latin-1", "escaped-surrogate", "nested-array", "nested-object"])
def test_hostile_request_on_stdin(stdin: bytes, home: dict[str, str]) -> None:
    user_error(run("search", "--request", "-", "--json", stdin=stdin, env=home))


def test_markup_in_a_query_is_printed_literally(home: dict[str, str]) -> None:
    r = run("search", "[/x] [bold]", env=home)
    assert r.code == 0, r.stderr
    assert "[/x] [bold]" in r.stdout


# -- queries that start with '-' -------------------------------------------------------------
def test_dash_queries(home: dict[str, str]) -> None:
    r = run("search", "--json", "--", "-foo", env=home)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["query"] == "-foo"
    r = run("search", "-rf flag", "--limit", "3", "--json", env=home)
    assert r.code == 0, r.stderr
    assert json.loads(r.stdout)["query"] == "-rf flag"
    assert "--" in run("search", "--help").stdout


def test_a_dash_word_without_the_separator_is_an_unknown_option(home: dict[str, str]) -> None:
    user_error(run("search", "-foo", "--json", env=home))


# -- pipes, version --------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["search", "mysql"], ["status"], ["sql", "SELECT * FROM range(3000)"],
                                  ["search", "mysql", "--json"], ["--version"]])
def test_a_closed_pipe_is_a_quiet_exit(args: list[str], home: dict[str, str]) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before akw writes a byte
    try:
        r = akw(*args, stdout=write, env=home)
    finally:
        os.close(write)
    assert r.returncode == 0 and r.stderr == b"", r.stderr.decode(errors="replace")


def test_piping_into_head(home: dict[str, str]) -> None:
    cmd = f'"{AKW}" sql "SELECT * FROM range(20000)" --limit 20000 | head -1 >/dev/null; exit ${{PIPESTATUS[0]}}'
    r = subprocess.run(["bash", "-c", cmd], capture_output=True, env={**os.environ, **home}, timeout=120)
    assert r.returncode == 0 and b"Traceback" not in r.stderr and b"Exception ignored" not in r.stderr, r.stderr


def test_version() -> None:
    r = akw("--version")
    assert r.returncode == 0 and warehouse.__version__ in r.stdout.decode()


# -- shared location options ------------------------------------------------------------------
def test_location_options_before_or_after_the_command(home: dict[str, str]) -> None:
    loc = ["--dsh-home", home["DSH_HOME"], "--autoclaw-root", home["AUTOCLAW_ROOT"], "--home", home["AKW_HOME"]]
    clean = {k: "" for k in home}  # nothing from the environment: only the flags say where
    before = run(*loc, "status", "--json", env=clean)
    after = run("status", *loc, "--json", env=clean)
    assert before.code == after.code == 0, (before.stderr, after.stderr)
    rev = json.loads(before.stdout)["index_rev"]
    assert rev and json.loads(after.stdout)["index_rev"] == rev
    wins = run("--home", "/nonexistent-akw-home", "status", "--home", home["AKW_HOME"], "--json", env=clean)
    assert json.loads(wins.stdout)["index_rev"] == rev  # the flag after the command is the more specific


def test_config_roundtrip_readable(tmp_path: Path) -> None:
    assert run("--home", str(tmp_path), "config", "set", "retention_days=45").code == 0
    r = run("config", "show", "--home", str(tmp_path))
    assert r.code == 0 and "retention_days=45" in r.stdout.splitlines()


# -- readable output --------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["status"], ["sources"], ["search", "restore mysql access"], ["reindex"],
                                  ["reindex", "--mode", "verify"], ["config", "show"],
                                  ["sql", "SELECT {'a': [1, 2]} AS s, NULL AS n"]])
def test_readable_output_has_no_python_reprs(args: list[str], home: dict[str, str]) -> None:
    r = run(*args, env=home)
    assert r.code == 0, r.stderr
    text = r.stdout
    assert text.strip() and not PY_DICT.search(text), text


def test_verify_mismatches_are_text(tmp_path: Path) -> None:
    r = run("reindex", "--mode", "verify", "--home", str(tmp_path / "empty"))
    assert "published: message=no generation is published" in r.stdout
    assert not PY_DICT.search(r.stdout)


# -- the API the CLI mirrors -------------------------------------------------------------------
def test_search_request_is_built_in_one_place() -> None:
    req = search_request("q", "find_code", 5, ["/w"], filters={"sessions": ["s1"]}, trace=True)
    assert req == {"schema": "knowledge.search/v1", "query": "q", "mode": "find_code", "limit": 5, "trace": True,
                   "filters": {"sessions": ["s1"], "workspaces": ["/w"]}}


def test_cli_import_stays_light() -> None:
    r = subprocess.run([sys.executable, "-X", "importtime", "-c", "import warehouse.cli"], capture_output=True,
                       text=True, check=True, timeout=120)
    loaded = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in r.stderr.splitlines() if "|" in line}
    assert not loaded & {"akw_fixtures", "polars", "pyarrow"}


def test_fixtures_generate_readable(tmp_path: Path) -> None:
    r = run("fixtures", "generate", "--out", str(tmp_path / "fx"), "--sessions", "1")
    assert r.code == 0, r.stderr
    text = r.stdout
    assert "DSH_HOME=" in text and not PY_DICT.search(text)
