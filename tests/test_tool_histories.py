"""Claude Code and Codex histories end to end (issue 26): the real sample files in their tools' layouts,
indexed next to nothing else, answer who did what, hand over to the tool's resume command, respect access
control by working folder, and are read incrementally, live-safe and without a write.

The samples are read where they lie (../shared/realdata/agents) and laid out at test time in a temporary
`~/.claude` / `~/.codex` of the test's own; counts are written by hand from reading the files.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from akw_fixtures.realdata import agents
from homes import q

from warehouse.api import Warehouse
from warehouse.core.errors import Code, KnowledgeError
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings

AGENTS = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "agents"
CC = AGENTS / "claude-code" / "codemie-code"
pytestmark = pytest.mark.skipif(not AGENTS.is_dir() and not os.environ.get("AKW_REQUIRE_REALDATA"),
                                reason=f"real agent samples absent at {AGENTS}")

MAIN = "4c2ddfdc-b619-4525-8d03-1950fb1b0257"
LONG = "session-624a4a58"
TOOLS = "session-9eda1058"
SPEC = "turn-2"
CODEX_SUMMARY = "019b7f94-51b4-7593-922e-ba12b5b73b52"
CODEX_TUI = "019e1625-789d-76c0-80ab-3724b5ddb799"
CODEX_DESKTOP = "019e1695-0522-7c83-8b39-0dd379793f80"
# human requests per session, counted by hand (harness text — /clear echo, compact summary, Warmup — is not one)
EPISODES = {MAIN: 3, TOOLS: 3, LONG: 14, SPEC: 1, CODEX_SUMMARY: 1, CODEX_TUI: 2, CODEX_DESKTOP: 3}


def lay_out(dst: Path, spec_file: str = "turn-2.jsonl") -> tuple[Path, Path]:
    """(`~/.claude`, `~/.codex`) as the tools keep them, the samples laid out by fixtures/realdata/agents.py;
    `spec_file="turn-1.jsonl"` puts turn-2's byte prefix in its place (the session as it was mid-run)."""
    agents.lay_out(dst)
    if spec_file != "turn-2.jsonl":
        shutil.copyfile(CC / "incremental-subagents" / spec_file,
                        dst / "claude" / "projects" / agents.SPEC_PROJECT / "turn-2.jsonl")
    return dst / "claude", dst / "codex"


def lay_out_claude(dst: Path, spec_file: str = "turn-2.jsonl") -> Path:
    """Only `~/.claude` (a test of one tool: another session's text may name this one's ids)."""
    return lay_out(dst, spec_file)[0]


def open_wh(root: Path, claude: Path, codex: Path, **settings: str) -> Warehouse:
    paths = dataclasses.replace(Paths.resolve(root / "no-dsh", root / "no-autoclaw", root / "akw"),
                                dsh_explicit=False, autoclaw_explicit=False, claude_home=claude, codex_home=codex)
    cfg = Settings()
    for k, v in {"retention_days": "3650", **settings}.items():  # the samples are up to a year older than the clock
        cfg = cfg.with_value(k, v)
    cfg.save(paths.config_file)
    return Warehouse(paths)


def digest(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def rows(wh: Warehouse, sql: str, params: list[Any] | None = None) -> list[tuple]:
    """Read the published generation through the engine's connection (one DuckDB configuration per file)."""
    cur, _gen = wh.engine.reader()
    try:
        return cur.execute(sql, params or []).fetchall()
    finally:
        cur.close()


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Warehouse, dict[str, Any], dict[str, str]]:
    root = tmp_path_factory.mktemp("tools")
    claude, codex = lay_out(root / "src")
    before = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
    wh = open_wh(root, claude, codex)
    run = wh.reindex()
    assert run["outcome"] == "published", run
    after = {**digest(claude), **{f"codex/{k}": v for k, v in digest(codex).items()}}
    assert after == before  # read-only: not one byte of either tool's home changed
    return wh, run, before


def source(run: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in run["extract"]["sources"] if s["source"] == name)


def test_every_sample_file_is_one_unit_and_none_fails(indexed: tuple) -> None:
    _wh, run, _ = indexed
    cc, cx = source(run, "claude_code"), source(run, "codex")
    assert cc["units"]["seen"] == 7 and cc["units"]["failed"] == 0 and cc["root"] == "ok"
    assert cx["units"]["seen"] == 3 and cx["units"]["failed"] == 0 and cx["root"] == "ok"


def test_each_human_request_is_one_episode(indexed: tuple) -> None:
    wh, _run, _ = indexed
    got = dict(rows(wh, "SELECT session_id, count(*) FROM ak_episode WHERE origin IN ('claude_code', 'codex') "
                        "AND session_id NOT LIKE '%:agent-%' GROUP BY ALL"))
    assert got == EPISODES


def test_subagents_are_actors_named_by_their_role_and_attached_to_their_session(indexed: tuple) -> None:
    wh, _run, _ = indexed
    actors = {r[0]: r[1:] for r in rows(wh, "SELECT actor_id, kind, display_name, origin, parent_session_id, "
                                            "dispatch_mode FROM ak_actor WHERE origin = 'claude_code'")}
    spec = actors[f"actor:harness:subagent:{SPEC}:solution-architect"]
    assert spec[0] == "subagent" and spec[1] == "solution-architect · codemie-code" and spec[3] == SPEC
    for agent in ("36541525", "50243ee8"):  # legacy warm-up sidechains: their parent is named by their lines
        assert actors[f"actor:harness:subagent:{MAIN}:agent-{agent}"][3] == MAIN
    root = actors[f"actor:harness:root:{MAIN}"]
    assert root[0] == "root_session" and root[1].startswith("Claude Code · private · ")
    assert root[4] == "external_handoff"
    codex = dict(rows(wh, "SELECT actor_id, display_name FROM ak_actor WHERE origin = 'codex'"))
    assert codex[f"actor:harness:root:{CODEX_TUI}"].startswith("Codex · codemie-code · ")


def test_tool_calls_errors_and_skill_uses_reach_the_marts(indexed: tuple) -> None:
    wh, _run, _ = indexed
    calls = dict(rows(wh, "SELECT session_id, sum(tool_calls) FROM ak_episode WHERE origin IN ('claude_code', 'codex') "
                          "GROUP BY ALL"))
    assert calls[LONG] == 48 and calls[CODEX_TUI] == 105 and calls[CODEX_DESKTOP] == 38
    assert calls[f"{SPEC}:agent-a485154"] == 20
    paths = {r[0] for r in rows(wh, "SELECT path FROM stg_dsh_artifacts WHERE session_id = ?", [MAIN])}
    assert {"/tmp/private/hello.py"} <= paths


def test_search_finds_who_did_it_in_claude_code_and_codex(indexed: tuple) -> None:
    wh, _run, _ = indexed
    for query, session in (("track the latest synced message id for claude metrics", LONG),
                           ("default context compaction 90 env var", CODEX_TUI),
                           ("draft demo scenario around governance budgeting analytics", CODEX_DESKTOP),
                           ("specification for adding missing CLI commands", SPEC)):
        out = q(wh, query, limit=5)
        top = [it["session_id"] for it in out["lanes"]["episodes"]["items"]][:3]
        assert any(s == session or s.startswith(session + ":") for s in top), (query, top)
        assert out["actors"] and out["actors"][0]["source"] == "harness"


def test_dispatch_to_a_claude_code_actor_is_a_handoff_with_its_resume_command(indexed: tuple) -> None:
    wh, _run, _ = indexed
    out = wh.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": "add one more CLI command"},
                       "target": {"mode": "actor", "actor_id": f"actor:harness:root:{SPEC}"}})
    target = out["target"]
    assert target["dispatch"] == {"mode": "external_handoff", "available": True, "reasons": []}
    assert target["origin"] == "claude_code"
    assert target["resume"] == {"tool": "claude_code", "session_id": SPEC, "command": f"claude --resume {SPEC}",
                                "cwd": "/Users/User/repo/codemie-ai/codemie-code"}
    sub = wh.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": "add one more CLI command"},
                       "target": {"mode": "actor", "actor_id": f"actor:harness:subagent:{SPEC}:solution-architect"}})
    assert sub["target"]["resume"]["command"] == f"claude --resume {SPEC}"  # its parent's session
    cx = wh.dispatch({"schema": "knowledge.dispatch/v1", "task": {"text": "raise the limit again"},
                      "target": {"mode": "actor", "actor_id": f"actor:harness:root:{CODEX_TUI}"}})
    assert cx["target"]["resume"]["command"] == f"codex resume {CODEX_TUI}"


def test_a_tool_session_belongs_to_the_workspace_of_its_folder(indexed: tuple) -> None:
    wh, _run, _ = indexed
    grants = dict(rows(wh, "SELECT session_id, grant_key FROM ak_acl_session WHERE session_id IN (?, ?)",
                       [MAIN, CODEX_TUI]))
    assert grants == {MAIN: "/tmp/private", CODEX_TUI: "/Users/Sample_User/repos/codemie-ai/codemie-code"}
    names = {r[0] for r in rows(wh, "SELECT name FROM ak_acl_workspace")}
    assert {"private", "codemie-code", "repo", "naya"} <= names


def test_the_tools_skills_folder_is_a_skill_root(indexed: tuple) -> None:
    wh, _run, _ = indexed
    assert rows(wh, "SELECT root_kind FROM ak_skill WHERE name = 'cli-spec-writer'") == [("claude_home",)]


def test_status_names_both_tools_and_their_roots(indexed: tuple) -> None:
    wh, _run, _ = indexed
    roots = wh.status()["roots"]
    assert roots["claude_code"]["state"] == "ok" and roots["codex"]["state"] == "ok"


def test_a_prefix_then_the_whole_file_equals_the_whole_file_once(tmp_path: Path) -> None:
    """turn-1.jsonl is a byte prefix of turn-2.jsonl: the append-only growth of a live session."""
    grown = lay_out_claude(tmp_path / "src", spec_file="turn-1.jsonl")
    wh = open_wh(tmp_path, grown, tmp_path / "no-codex")
    assert wh.reindex()["outcome"] == "published"
    target = grown / "projects" / "-Users-User-repo-codemie-ai-codemie-code" / "turn-2.jsonl"
    target.write_bytes((CC / "incremental-subagents" / "turn-2.jsonl").read_bytes())
    assert wh.reindex()["outcome"] == "published"
    once = open_wh(tmp_path / "once", lay_out_claude(tmp_path / "once-src"), tmp_path / "no-codex")
    assert once.reindex()["outcome"] == "published"
    sql = ("SELECT session_id, seq, kind, role, text, tool_name, call_id FROM stg_dsh_events "
           "WHERE session_id LIKE 'turn-2%' ORDER BY ALL")
    assert rows(wh, sql) == rows(once, sql)


def test_a_half_written_last_line_waits_for_the_next_run(tmp_path: Path) -> None:
    claude = lay_out_claude(tmp_path / "src")
    wh = open_wh(tmp_path, claude, tmp_path / "no-codex")
    wh.reindex()
    before = rows(wh, "SELECT count(*) FROM stg_dsh_events WHERE session_id = ?", [TOOLS])[0][0]
    f = claude / "projects" / "-Users-user-repo" / "session-9eda1058.jsonl"
    with open(f, "ab") as fh:
        fh.write(b'{"type":"user","uuid":"tail-1","sessionId":"x","message":{"role":"user","content":"half')
    run = wh.reindex()
    assert source(run, "claude_code")["units"]["failed"] == 0
    assert rows(wh, "SELECT count(*) FROM stg_dsh_events WHERE session_id = ?", [TOOLS])[0][0] == before
    with open(f, "ab") as fh:
        fh.write(b' written"},"timestamp":"2026-01-01T00:00:00Z"}\n')
    wh.reindex()
    assert rows(wh, "SELECT count(*) FROM stg_dsh_events WHERE session_id = ?", [TOOLS])[0][0] == before + 1


def test_a_file_the_tool_deleted_is_kept_until_retention(tmp_path: Path) -> None:
    claude = lay_out_claude(tmp_path / "src")
    wh = open_wh(tmp_path, claude, tmp_path / "no-codex")
    wh.reindex()
    (claude / "projects" / "-Users-user-repo" / "session-9eda1058.jsonl").unlink()  # cleanupPeriodDays
    wh.reindex()
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(3,)]
    assert rows(wh, "SELECT vanished FROM stg_dsh_sessions WHERE session_id = ?", [TOOLS]) == [(True,)]
    assert wh.reindex(mode="full")["outcome"] == "published"  # a full rebuild cannot read it again: kept too
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(3,)]
    short = open_wh(tmp_path, claude, tmp_path / "no-codex", retention_days="30")  # the samples are older
    run = short.reindex()
    assert source(run, "claude_code")["units"]["expired"] >= 1
    assert rows(short, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(0,)]


def test_akw_forget_removes_a_session_whose_file_the_tool_already_deleted(tmp_path: Path) -> None:
    claude = lay_out_claude(tmp_path / "src")
    wh = open_wh(tmp_path, claude, tmp_path / "no-codex")
    wh.reindex()
    (claude / "projects" / "-Users-user-repo" / "session-9eda1058.jsonl").unlink()
    wh.reindex()
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(3,)]
    done = wh.forget("session", TOOLS, confirm=True)  # proves no byte of it is left under AKW_HOME
    assert done["removed"]["episodes"] == 3
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(0,)]
    wh.reindex()
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE session_id = ?", [TOOLS]) == [(0,)]


def test_an_unknown_line_type_is_counted_and_warned_never_a_failure(tmp_path: Path) -> None:
    claude = lay_out_claude(tmp_path / "src")
    f = claude / "projects" / "-tmp-private" / f"{MAIN}.jsonl"
    f.write_bytes(f.read_bytes() + b'{"type":"hologram","uuid":"u-new","timestamp":"2026-01-01T00:00:00Z"}\n')
    wh = open_wh(tmp_path, claude, tmp_path / "no-codex")
    run = wh.reindex()
    cc = source(run, "claude_code")
    assert cc["units"]["failed"] == 0
    assert cc["errors"] == [] and [w["code"] for w in cc["warnings"]] == ["KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED"]
    assert "hologram" in cc["warnings"][0]["message"]
    assert [w["code"] for w in run["warnings"]] == ["KNOWLEDGE_SOURCE_SCHEMA_UNSUPPORTED"]  # the run says it too


def test_switched_off_a_tool_is_not_read(tmp_path: Path) -> None:
    claude, codex = lay_out(tmp_path / "src")
    wh = open_wh(tmp_path, claude, codex, **{"sources.claude_code": "false"})
    run = wh.reindex()
    assert source(run, "claude_code")["root"] == "off"
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE origin = 'claude_code'") == [(0,)]
    assert rows(wh, "SELECT count(*) FROM ak_episode WHERE origin = 'codex'") == [(6,)]


def test_under_access_control_a_principal_sees_only_the_folders_it_is_given(indexed: tuple) -> None:
    """Cross-principal: a right to the folder `private` shows its Claude Code session and nothing of the
    Codex sessions or the other Claude Code folders — in search, in the actors and in the cards."""
    wh, _run, _ = indexed
    rights = {"alice@example.com": {"workspaces": ["private"]},
              "bob@example.com": {"workspaces": ["/Users/Sample_User/repos/codemie-ai/codemie-code"]}}
    s = wh.settings.with_value("access.enabled", "true").with_value("access.principals", json.dumps(rights))
    alice, bob = (Warehouse(wh.paths, s, principal=p) for p in rights)
    for query in ("create hello.py md and js", "default context compaction 90 env var", "synced message id"):
        text = json.dumps(alice.search({"schema": "knowledge.search/v1", "query": query, "limit": 10}))
        for other in (CODEX_TUI, CODEX_DESKTOP, LONG, TOOLS, SPEC):
            assert other not in text, (query, other)
    seen = json.dumps(alice.search({"schema": "knowledge.search/v1", "query": "create hello.py md and js"}))
    assert MAIN in seen
    bob_text = json.dumps(bob.search({"schema": "knowledge.search/v1", "query": "default context compaction 90"}))
    assert CODEX_TUI in bob_text and MAIN not in bob_text
    assert wh.get_episode(f"episode:harness:{MAIN}:1")["episode_id"] == f"episode:harness:{MAIN}:1"
    with pytest.raises(KnowledgeError) as e:  # bob has no right to /tmp/private: the id is unknown to him
        bob.get_episode(f"episode:harness:{MAIN}:1")
    assert e.value.code == Code.NOT_FOUND


def test_the_real_agents_golden_slice_resolves_against_the_laid_out_samples(tmp_path: Path) -> None:
    """golden/agents.yaml (written from reading the samples) names templates the layout's manifest knows,
    with at least 20 queries, a third of them Russian, and absent topics (issue 26)."""
    from warehouse.evaluation.golden import Resolver, load_golden

    manifest = agents.lay_out(tmp_path / "agents")
    queries = [g for g in load_golden(Path(__file__).resolve().parents[1] / "golden" / "agents.yaml").queries
               if g.slice == "real_agents"]
    assert len(queries) >= 20 and sum(g.lang == "ru" for g in queries) * 3 >= len(queries)
    assert sum(g.kind == "empty" for g in queries) >= 5
    resolver = Resolver(manifest)
    for g in queries:
        e = resolver.resolve(g)
        assert e.problem is None and (e.empty or e.relevant), (g.id, e.problem)
    assert (tmp_path / "agents" / "claude" / "projects" / "-tmp-private" / f"{MAIN}.jsonl").read_bytes() == \
        (CC / "-tmp-private" / f"{MAIN}.jsonl").read_bytes()  # copied byte-identical, never changed
