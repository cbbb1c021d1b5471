"""AC-10 proof: no canary the generator plants survives anywhere under AKW_HOME or in any CLI output.

The run goes through the real CLI (reindex in a process of its own; search, get, dispatch dry run and
commit, sql, status, sources through the same app in-process, tests/cli_run.py). Then every file under
AKW_HOME is scanned twice: its raw bytes, and its decoded values (every Parquet column read with
pyarrow, every DuckDB table dumped), because Parquet pages and DuckDB blocks are compressed and a raw
grep alone could miss a secret. Logs (stderr, `logs/`,
`state/*.jsonl`) must carry no query and no source text either.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import akw_fixtures
import cli_run
import pyarrow.parquet as pq
import pytest
from akw_fixtures.canaries import ALL_KINDS, Canaries
from mcp_helpers import with_client

from warehouse.api import Warehouse
from warehouse.core import db

AKW = Path(sys.executable).parent / "akw"
SEED, SESSIONS = 7, 12
TOOLS = 4  # Claude Code transcripts and Codex rollouts each, so every source the warehouse reads gets the plant
QUERIES = [("восстановить доступ к mysql root", "auto"), ("legacy credentials audit", "find_code"),
           ("mysql access restore", "find_skill"), ("db guardian data loss", "find_agent")]
SOURCE_PHRASE = "kept until the audit"  # a line of the canary workspace file: source text, never a log line


def needles(manifest: dict[str, Any]) -> list[str]:
    """Each canary value, plus its long pieces (a part of a key, one line of a key block), so a
    partial leak (`S3cr3t/…` kept after a `/`) fails too; for e-mails the local part (hosts are kept)."""
    out: set[str] = set()
    for c in manifest["canaries"]:
        v = c["value"].split("@", 1)[0] if c["kind"] == "email" else c["value"]
        out.add(v)
        out.update(p for p in re.split(r"[\s/+:]+", v) if len(p) >= 10)
    return sorted(out)


def _plant_in_tool_logs(src: Path) -> list[dict[str, Any]]:
    """Every kind in one Claude Code transcript and one Codex rollout, appended as whole lines in each tool's
    own format (SOURCES.md): a human message, and a tool call whose result holds a second bundle."""
    cans, placed = Canaries(SEED + 2, ALL_KINDS), []

    def bundle(source: str) -> str:
        text, found = cans.bundle()
        placed.extend({"kind": k, "value": v, "where": {"source": source}} for k, v in found)
        return text

    cc = sorted(p for p in (src / "claude" / "projects").glob("*/*.jsonl") if not p.name.startswith("agent-"))[0]
    last = json.loads(cc.read_text(encoding="utf-8").splitlines()[-1])
    base = {k: last[k] for k in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch") if k in last}
    stamp = last["timestamp"][:-5] + "999Z"  # within the same second, after every line already there
    ids = [f"00000000-0000-4000-8000-00000000a{n:03d}" for n in range(3)]
    cc_lines = [
        {**base, "parentUuid": last["uuid"], "type": "user", "uuid": ids[0], "timestamp": stamp,
         "message": {"role": "user", "content": bundle("claude_code")}},
        {**base, "parentUuid": ids[0], "type": "assistant", "uuid": ids[1], "timestamp": stamp,
         "message": {"role": "assistant", "model": "claude-sonnet-4-5", "content": [
             {"type": "tool_use", "id": "toolu_canary", "name": "Bash", "input": {"command": bundle("claude_code")}}]}},
        {**base, "parentUuid": ids[1], "type": "user", "uuid": ids[2], "timestamp": stamp,
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_canary",
                                                  "content": bundle("claude_code"), "is_error": False}]}},
    ]
    rollout = sorted((src / "codex" / "sessions").rglob("rollout-*.jsonl"))[0]
    at = json.loads(rollout.read_text(encoding="utf-8").splitlines()[-1])["timestamp"]
    cx_lines = [
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [{"type": "input_text", "text": bundle("codex")}]}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "call_canary",
            "arguments": json.dumps({"command": ["bash", "-lc", bundle("codex")]})}},
        {"timestamp": at, "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_canary", "output": bundle("codex")}},
    ]
    for path, lines in ((cc, cc_lines), (rollout, cx_lines)):
        with open(path, "a", encoding="utf-8") as fh:
            fh.writelines(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    return placed


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("ac10")
    manifest = akw_fixtures.generate(root / "src", sessions=SESSIONS, seed=SEED, claude_code_sessions=TOOLS,
                                     codex_sessions=TOOLS, canary_kinds=ALL_KINDS)  # the issue-25 kinds too
    manifest["canaries"] += _plant_in_tool_logs(root / "src")
    home = root / "akw"
    paths = {"DSH_HOME": str(root / "src" / "dsh"), "AUTOCLAW_ROOT": str(root / "src" / "autoclaw"),
             "CLAUDE_CONFIG_DIR": str(root / "src" / "claude"), "CODEX_HOME": str(root / "src" / "codex"),
             "AKW_HOME": str(home)}
    env = {**os.environ, **paths}
    calls: list[dict[str, Any]] = []

    def akw(*args: str, stdin: str | None = None, process: bool = False) -> Any:
        if process:  # the installed entry point in a process of its own (its logging set up at start)
            p = subprocess.run([str(AKW), *args, "--json"], env=env, capture_output=True, text=True, input=stdin,
                               timeout=600, check=False)
            code, out, err = p.returncode, p.stdout, p.stderr
        else:  # the same app in-process (tests/cli_run.py): no interpreter start per call
            r = cli_run.run(*args, "--json", env=paths, stdin=stdin)
            code, out, err = r.code, r.stdout, r.stderr
        calls.append({"args": args, "rc": code, "stdout": out, "stderr": err})
        assert code == 0, (args, out[-2000:], err[-2000:])
        return json.loads(out)

    def sql(q: str) -> list[list[Any]]:
        return akw("sql", q, "--limit", "100000")["rows"]

    akw("reindex", process=True)
    for q, mode in QUERIES:
        akw("search", q, "--mode", mode)
    where = [c["where"] for c in manifest["canaries"]]
    sids = sorted({w["session_id"] for w in where if w["source"] == "dsh"})
    runs = sorted({w["row_id"] for w in where if w.get("table") == "work_runs"})
    agents = sorted({w["row_id"] for w in where if w.get("table") == "agents"})
    in_list = lambda xs: ", ".join(f"'{x}'" for x in xs)  # noqa: E731 - ids from our own manifest
    episodes = [r[0] for r in sql(f"SELECT episode_id FROM ak_episode WHERE session_id IN ({in_list(sids)}) "
                                  f"OR run_id IN ({in_list(runs)}) ORDER BY 1")]
    actors = [r[0] for r in sql(f"SELECT actor_id FROM ak_actor WHERE agent_id IN ({in_list(agents)}) ORDER BY 1")]
    chunks = [r[0] for r in sql("SELECT doc_key FROM ak_document WHERE lane = 'code' AND "
                                "path LIKE '%legacy_credentials%' ORDER BY 1")]
    skills = [r[0] for r in sql("SELECT skill_id FROM ak_skill WHERE name = 'mysql-access-restore' ORDER BY 1")]
    assert episodes and actors and len(chunks) >= 2 and skills
    for ep in episodes:
        akw("get", "episode", ep, "--max-chars", "200000")
    for a in actors:
        akw("get", "agent", a)
    for c in chunks:
        akw("get", "code", c)
    for s in skills:
        akw("get", "skill", "mysql-access-restore", "--source", s, "--task", "restore root access")
    for q in ("SELECT * FROM ak_document", "SELECT * FROM ak_event", "SELECT * FROM ak_memory",
              "SELECT * FROM ak_actor", "SELECT * FROM ak_skill", "SELECT * FROM stg_code_chunks"):
        sql(q)
    secrets, planted = Canaries(SEED + 1, ALL_KINDS).bundle()  # every kind, in the forms people paste them
    manifest = {**manifest, "canaries": manifest["canaries"] + [{"kind": k, "value": v, "where": {"source": "task"}}
                                                                for k, v in planted]}
    task = {"title": "Restore MySQL root access", "text": f"root gets ERROR 1045; use mysql-access-restore\n{secrets}",
            "acceptance": ["root can log in"], "constraints": ["no restart"]}
    akw("dispatch", "--request", "-", stdin=json.dumps({"schema": "knowledge.dispatch/v1", "task": task}))
    akw("dispatch", "--request", "-", "--yes", stdin=json.dumps(
        {"schema": "knowledge.dispatch/v1", "task": task, "dry_run": False, "commit": True, "confirm": True}))
    akw("status")
    akw("sources")
    akw("report", "--out", str(root / "reports"))
    calls += _mcp_outputs(Warehouse.open(home=home, **{k: paths[v] for k, v in _OPEN.items()}),
                          episodes, chunks)
    return {"manifest": manifest, "home": home, "calls": calls, "reports": root / "reports"}


_OPEN = {"dsh_home": "DSH_HOME", "autoclaw_root": "AUTOCLAW_ROOT", "claude_home": "CLAUDE_CONFIG_DIR",
         "codex_home": "CODEX_HOME"}


def _mcp_outputs(wh: Warehouse, episodes: list[str], chunks: list[str]) -> list[dict[str, Any]]:
    """What a model reads from `akw mcp` (a real server over stdio): searches compact and full, and the cards,
    as one call record each (stdout = every content block's text and the structured result)."""
    asks: list[tuple[str, dict[str, Any]]] = [
        ("knowledge_search", {"query": q, "mode": mode, **detail}) for q, mode in QUERIES
        for detail in ({}, {"detail": "full"})]
    asks += [("knowledge_get_episode", {"id": ep, "max_chars": 100000}) for ep in episodes[:6]]
    asks += [("knowledge_get_code", {"id": c}) for c in chunks]
    asks += [("knowledge_get_skill", {"name": "mysql-access-restore", "task": "restore root access"})]

    async def body(c: Any) -> list[dict[str, Any]]:
        out = []
        for tool, args in asks:
            r = await c.call_tool(tool, args)
            text = "\n".join(getattr(b, "text", "") for b in r.content)
            out.append({"args": ("mcp", tool), "rc": int(bool(r.is_error)), "stderr": "",
                        "stdout": text + json.dumps(r.structured_content, ensure_ascii=False)})
        return out

    return with_client(wh, body)


def _parquet_values(path: Path) -> str:
    """Every value of every column (nested ones included), decoded from the compressed pages."""
    table = pq.read_table(path)
    return "\n".join(json.dumps(table.column(name).to_pylist(), default=str, ensure_ascii=False)
                     for name in table.column_names)


def _duckdb_values(path: Path) -> str:
    con = db.connect(extensions=())
    try:
        con.execute(f"ATTACH '{path.as_posix()}' AS g (READ_ONLY)")
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE database_name = 'g'")
                  .fetchall()]
        parts = []
        for t in tables:
            for row in con.execute(f'SELECT CAST(COLUMNS(*) AS VARCHAR) FROM g."{t}"').fetchall():
                parts.extend(v for v in row if v)
        return "\n".join(parts)
    finally:
        con.close()


def test_every_kind_is_planted_in_every_kind_of_source(run: dict[str, Any]) -> None:
    cans = run["manifest"]["canaries"]
    for source in ("dsh", "autoclaw", "skill", "code", "claude_code", "codex"):
        assert set(ALL_KINDS) <= {c["kind"] for c in cans if c["where"]["source"] == source}, source
    assert len(ALL_KINDS) == 48 and len({c["value"] for c in cans}) >= 400  # unique values, minted once each


def test_no_canary_in_any_byte_or_value_under_akw_home(run: dict[str, Any]) -> None:
    home: Path = run["home"]
    ns = needles(run["manifest"])
    files = [p for p in sorted(home.rglob("*")) if p.is_file()]
    kinds = {p.suffix for p in files}
    assert {".parquet", ".duckdb"} <= kinds and any(p.parent.name == "outbox" for p in files)
    markers = 0
    for p in files:
        data = p.read_bytes()
        for v in ns:
            assert v.encode() not in data, f"canary {v[:14]}… in the bytes of {p.relative_to(home)}"
        decoded = ""
        if p.suffix == ".parquet":
            decoded = _parquet_values(p)
        elif p.suffix == ".duckdb":
            decoded = _duckdb_values(p)
        markers += decoded.count("[REDACTED:")
        for v in ns:
            assert v not in decoded, f"canary {v[:14]}… in the values of {p.relative_to(home)}"
    assert markers > 0  # the decoded scan does see the text the canaries sat in
    for tool in ("claude_code", "codex"):  # the lines planted in the tools' logs were read, and redacted
        lake = "\n".join(_parquet_values(p) for p in sorted((home / "lake" / "bronze" / tool).rglob("*.parquet")))
        assert all(f"[REDACTED:{k}]" in lake for k in ("iban", "slack_webhook", "aws_secret", "card")), tool
    for kind in ("private_key", "card", "stripe_key", "phone", "url_password", "secret", "jwt", "bearer", "iban",
                 "aws_secret", "basic_auth", "stripe_webhook_secret", "slack_webhook"):
        assert any(f"[REDACTED:{kind}]" in (_parquet_values(p) if p.suffix == ".parquet" else "")
                   for p in files), kind


def test_no_canary_in_any_cli_output(run: dict[str, Any]) -> None:
    """Every CLI answer, every MCP result (compact and full searches, the cards) and every report file."""
    ns = needles(run["manifest"])
    assert len(run["calls"]) >= 15 and sum(c["args"][0] == "mcp" for c in run["calls"]) >= 10
    assert all(c["rc"] == 0 for c in run["calls"]), [c["args"] for c in run["calls"] if c["rc"]]
    reports = [p for p in sorted(run["reports"].rglob("*")) if p.is_file()]
    assert {p.suffix for p in reports} >= {".html", ".json"}
    for p in reports:
        text = p.read_text(encoding="utf-8")
        for v in ns:
            assert v not in text, (p.name, v[:14])
    for c in run["calls"]:
        for v in ns:
            assert v not in c["stdout"] and v not in c["stderr"], (c["args"][:2], v[:14])
    code = [c for c in run["calls"] if c["args"][:2] == ("get", "code")]
    assert any("[REDACTED:private_key]" in c["stdout"] for c in code)  # the 130-line key block, whole


def test_logs_carry_no_query_and_no_source_text(run: dict[str, Any]) -> None:
    home: Path = run["home"]
    logs = [c["stderr"] for c in run["calls"]]
    logs += [p.read_text(encoding="utf-8", errors="replace") for p in sorted((home / "logs").rglob("*"))
             if p.is_file()]
    logs += [p.read_text(encoding="utf-8") for p in sorted((home / "state").glob("*.jsonl"))]
    assert any(logs)  # the run log at least
    text = "\n".join(logs)
    for q, _mode in QUERIES:
        assert q not in text
    assert SOURCE_PHRASE not in text
    for v in needles(run["manifest"]):
        assert v not in text
