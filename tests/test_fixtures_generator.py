"""The realistic source generator: determinism, every planted pitfall, manifest truth, canaries."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
import yaml
import zstandard
from akw_fixtures import generate
from akw_fixtures.canaries import BUNDLE_KINDS
from akw_fixtures.dsh_log import INJECTED_KINDS

from warehouse.core.redact import redact

SEED = 3


# -- helpers ------------------------------------------------------------------------
def frames(raw: bytes) -> list[bytes]:
    """Decode a multi-frame zstd file frame by frame (stdlib-free of our own reader)."""
    out = []
    while raw:
        obj = zstandard.ZstdDecompressor().decompressobj()
        out.append(obj.decompress(raw))
        raw = obj.unused_data
    return out


def read_log(path: Path) -> tuple[list[dict[str, Any]], str | None, int]:
    """(parsed lines, truncated tail or None, frame count)."""
    fr = frames(path.read_bytes())
    text = b"".join(fr).decode("utf-8")
    lines = text.split("\n")
    tail = lines.pop() or None  # text after the last newline = a torn line
    return [json.loads(x) for x in lines], tail, len(fr)


def session_files(out: Path, m: dict[str, Any]) -> dict[str, Path]:
    broken = {b.get("session_id") for b in m["broken"]}
    files = {p.parent.name: p for p in (out / "dsh" / "sessions").glob("*/*/session.v4.jsonl.zstd")}
    return {k: v for k, v in sorted(files.items()) if k not in broken}


def text_of(ev: dict[str, Any], field: str) -> str:
    d = ev["data"]
    if field == "tool/call.arguments":
        return d["arguments"]
    return "\n".join(b["text"] for b in d["content"])


def ro(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("fx")
    return out, generate(out, sessions=14, seed=SEED, broken=True)


@pytest.fixture(scope="module")
def logs(gen: tuple[Path, dict[str, Any]]) -> dict[str, tuple[list[dict[str, Any]], str | None, int]]:
    out, m = gen
    return {sid: read_log(p) for sid, p in session_files(out, m).items()}


# -- determinism ----------------------------------------------------------------------
def _digest(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.is_symlink() and "runtime.sqlite" not in p.name}


def _tables(out: Path) -> dict[str, list[Any]]:
    res = {}
    for db in sorted(out.glob("autoclaw/accounts/*/runtime/runtime.sqlite")):
        con = ro(db)
        for (t,) in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '%fts%'"):
            res[f"{db.parent.parent.name}.{t}"] = sorted(map(repr, con.execute(f"SELECT * FROM {t}")))
        con.close()
    return res


def test_same_args_same_bytes_and_tables(tmp_path: Path) -> None:
    m1 = generate(tmp_path, sessions=6, seed=11)
    d1, t1 = _digest(tmp_path), _tables(tmp_path)
    m2 = generate(tmp_path, sessions=6, seed=11)
    assert m1 == m2
    assert d1 == _digest(tmp_path)
    assert t1 == _tables(tmp_path)
    other = tmp_path / "other"
    m3 = generate(other, sessions=6, seed=12)
    assert m3["tasks"] != m1["tasks"]


# -- DSH log pitfalls --------------------------------------------------------------------
def test_every_file_is_multi_frame_with_header_and_increasing_seq(logs: dict[str, Any]) -> None:
    multi = 0
    for sid, (events, _tail, n_frames) in logs.items():
        head = events[0]
        assert head["type"] == "session" and head["version"] == 4 and head["id"] == sid
        seqs = [e["seq"] for e in events[1:]]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        multi += n_frames > 1
    assert multi >= len(logs) - 2


def test_counts_match_what_is_on_disk(gen: tuple[Path, dict[str, Any]], logs: dict[str, Any]) -> None:
    c = gen[1]["counts"]
    lines = unique = replayed = human = injected = truncated = 0
    for events, tail, _ in logs.values():
        created = events[0]["createdAt"]
        lines += len(events) + (tail is not None)
        truncated += tail is not None
        for e in events[1:]:
            if e["time"] < created:
                replayed += 1
                continue
            unique += 1
            if e["type"] == "user/message":
                human += e["data"]["source"]["kind"] == "user"
                injected += e["data"]["source"]["kind"] != "user"
    assert (lines, unique, replayed, human, injected, truncated) == (
        c["dsh_lines_total"], c["dsh_events_unique"], c["dsh_replayed_events"], c["dsh_human_messages"],
        c["dsh_injected_messages"], c["dsh_truncated_sessions"])
    assert c["dsh_lines_total"] == (c["dsh_session_files"] + c["dsh_events_unique"] + c["dsh_replayed_events"]
                                    + c["dsh_truncated_sessions"])
    assert truncated >= 1 and replayed >= 1 and injected > human


def test_truncated_tail_is_unparseable(logs: dict[str, Any]) -> None:
    tails = [t for _, t, _ in logs.values() if t is not None]
    assert tails
    for t in tails:
        with pytest.raises(json.JSONDecodeError):
            json.loads(t)


def test_forks_replay_parent_history_verbatim(gen: tuple[Path, dict[str, Any]], logs: dict[str, Any]) -> None:
    forks = [(sid, ev) for sid, (ev, _, _) in logs.items() if ev[0]["parentSession"]]
    assert forks
    for _sid, ev in forks:
        parent = logs[ev[0]["parentSession"]][0]
        replay = [e for e in ev[1:] if e["time"] < ev[0]["createdAt"]]
        assert replay and replay == parent[1:1 + len(replay)]
        own = ev[1 + len(replay):]
        assert own and all(e["time"] >= ev[0]["createdAt"] for e in own)
        parent_turns = {e["data"]["turn"] for e in replay if e["type"] == "assistant/message"}
        own_turns = {e["data"]["turn"] for e in own if e["type"] == "assistant/message"}
        assert not parent_turns & own_turns  # (session, turn, step) stays unique after the replay


def test_injected_kinds_and_json_string_arguments(logs: dict[str, Any]) -> None:
    kinds, tools, slash = set(), set(), 0
    for ev, _, _ in logs.values():
        for e in ev[1:]:
            if e["type"] == "user/message":
                kinds.add(e["data"]["source"]["kind"])
                slash += e["data"]["content"][0]["text"].startswith("/")
            if e["type"] == "tool/call":
                assert isinstance(e["data"]["arguments"], str)
                args = json.loads(e["data"]["arguments"])
                assert isinstance(args, dict)
                tools.add(e["data"]["name"])
                if e["data"]["name"] == "skill":
                    assert set(args) == {"name"}
    assert kinds == {"user", *INJECTED_KINDS}
    assert {"bash", "write", "edit", "skill", "subagent", "spawn_teammate", "send_message", "team_task_create"} <= tools
    assert slash >= 1


def test_event_kinds_and_assistant_shape(logs: dict[str, Any]) -> None:
    kinds, errors = set(), 0
    for ev, _, _ in logs.values():
        for e in ev[1:]:
            kinds.add(e["type"])
            d = e["data"]
            if e["type"] == "assistant/message":
                assert {b["type"] for b in d["message"]["content"]} == {"reasoning", "text"}
                assert d["model"] and d["usage"]["input_tokens"] > 0 and d["finishReason"] in ("tool-calls", "stop")
            errors += e["type"] == "tool/result" and d["isError"]
    assert {"deliverables/presented", "workspace/changes", "compaction/started", "compaction/completed",
            "goal/change", "subagent/catalog", "session/title"} <= kinds
    assert errors > 0


def test_projections_subagent_team_missing_stale(gen: tuple[Path, dict[str, Any]], logs: dict[str, Any]) -> None:
    out, m = gen
    pdir = out / "dsh" / "storages" / "session_projcache" / "sessions"
    proj = {p.stem: json.loads(p.read_text()) for p in pdir.glob("*.json")}
    assert set(logs) - set(proj), "some projections must be missing"
    stale = [s for s, p in proj.items() if p["stats"]["events"] != len(logs[s][0]) - 1]
    assert stale
    by_kind = {a["kind"]: a for a in m["actors"]}
    sub = by_kind["subagent"]
    assert proj[sub["session_id"]]["subagent"] == {"parentSession": sub["parent_session_id"], "name": sub["name"]}
    members = [a for a in m["actors"] if a["kind"] == "team_member"]
    team = proj[members[0]["parent_session_id"]]["agentTeam"]
    assert team["lead"] == members[0]["parent_session_id"]
    assert {x["sessionId"] for x in team["members"]} >= {a["session_id"] for a in members if
                                                          a["parent_session_id"] == team["lead"]}
    assert all(x["sessionId"] in logs for x in team["members"])
    reg = json.loads((out / "dsh" / "storages" / "workspace.json").read_text())
    registered = {s for w in reg["workspaces"] for s in w["sessionIds"]}
    assert registered == set(logs)
    assert all(Path(w["path"]).is_absolute() and Path(w["path"]).is_dir() for w in reg["workspaces"])


def test_tasks_point_at_the_human_message(gen: tuple[Path, dict[str, Any]], logs: dict[str, Any]) -> None:
    m = gen[1]
    actors = {a["actor_id"] for a in m["actors"]}
    harness = [t for t in m["tasks"] if t["source"] == "harness"]
    assert len(harness) == m["counts"]["dsh_human_messages"]
    for t in harness:
        ev = {e.get("seq"): e for e in logs[t["session_id"]][0][1:]}
        first = ev[t["seq_range"][0]]
        assert first["type"] == "user/message" and first["data"]["source"]["kind"] == "user"
        assert first["data"]["content"][0]["text"] == t["request"]
        assert t["seq_range"][1] in ev and t["actor_id"] in actors
    assert any(t["skill_via"] == "slash" for t in harness) and any(t["skill_via"] == "tool" for t in harness)
    for t in harness:  # a task lists a skill exactly when its turn used one (tool call or /slash)
        ev = {e.get("seq"): e for e in logs[t["session_id"]][0][1:]}
        lo, hi = t["seq_range"]
        calls = {json.loads(e["data"]["arguments"])["name"] for s, e in ev.items() if lo <= s <= hi
                 and e["type"] == "tool/call" and e["data"]["name"] == "skill"}
        slash = {t["request"].split()[0][1:]} if t["request"].startswith("/") else set()
        assert set(t["skills"]) == calls | slash
    by_template: dict[str, set[tuple[str, str]]] = {}
    for t in m["tasks"]:
        by_template.setdefault(t["template"], set()).add((t["actor_id"], t["outcome"]))
    assert any(len({a for a, _ in v}) >= 3 and len({o for _, o in v}) >= 2 for v in by_template.values())


def test_actor_id_formats(gen: tuple[Path, dict[str, Any]]) -> None:
    pats = {"root_session": r"actor:harness:root:session-[0-9a-f]+",
            "subagent": r"actor:harness:subagent:session-[0-9a-f]+:[a-z-]+",
            "team_member": r"actor:harness:team_member:session-[0-9a-f]+:[a-z-]+",
            "autoclaw_agent": r"actor:autoclaw:agent:\d+:agt_[0-9a-f]+"}
    seen = set()
    for a in gen[1]["actors"]:
        assert re.fullmatch(pats[a["kind"]], a["actor_id"]), a
        seen.add(a["kind"])
    assert seen == set(pats)


# -- AutoClaw ----------------------------------------------------------------------------
def _entries(con: sqlite3.Connection) -> list[tuple[str, str, dict[str, Any]]]:
    rows = con.execute("SELECT session_id, entry_type, payload FROM neutral_session_entries ORDER BY session_id, "
                       "session_seq").fetchall()
    return [(s, t, json.loads(p)) for s, t, p in rows]


def test_autoclaw_tables_and_pitfalls(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    c = m["counts"]
    dbs = sorted(out.glob("autoclaw/accounts/*/runtime/runtime.sqlite"))
    assert len(dbs) == c["autoclaw_accounts"] == 2
    tot = dict.fromkeys(("sessions", "deleted", "runs", "entries", "dups", "answers"), 0)
    statuses, content_blocks, sizes = set(), 0, []
    for db in dbs:
        con = ro(db)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 50
        tot["sessions"] += con.execute("SELECT count(*) FROM work_sessions").fetchone()[0]
        tot["deleted"] += con.execute("SELECT count(*) FROM work_sessions WHERE deleted_at IS NOT NULL").fetchone()[0]
        tot["runs"] += con.execute("SELECT count(*) FROM work_runs").fetchone()[0]
        statuses |= {s for (s,) in con.execute("SELECT status FROM work_runs")}
        ents = _entries(con)
        tot["entries"] += len(ents)
        sizes.append(len(ents))
        last: dict[str, str] = {}
        answered: dict[str, bool] = {}
        calls: dict[str, int] = {}
        for sid, etype, p in ents:
            d = p["data"]
            if etype == "request":
                if last.get(sid) == d["text"] and not answered.get(sid):
                    tot["dups"] += 1
                else:
                    last[sid], answered[sid] = d["text"], False
            elif etype == "answer":
                answered[sid] = True
                tot["answers"] += 1
            elif etype == "assistant":
                assert d["model"]["model"]
                content_blocks += "content" in d
            elif etype in ("tool_call", "tool_result"):
                calls[d["toolCallId"]] = calls.get(d["toolCallId"], 0) + 1
        assert set(calls.values()) == {2}
        stamps = [s for (s,) in con.execute("SELECT committed_at FROM neutral_session_entries")]
        assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", s) for s in stamps)
        con.close()
    assert (tot["sessions"], tot["deleted"], tot["runs"], tot["entries"], tot["dups"], tot["answers"]) == (
        c["autoclaw_sessions"], c["autoclaw_sessions_deleted"], c["autoclaw_runs"], c["autoclaw_entries"],
        c["autoclaw_duplicate_requests"], c["autoclaw_answer_duplicates"])
    assert tot["deleted"] >= 1 and tot["dups"] >= 1 and content_blocks >= 1
    assert {"completed", "failed", "cancelled"} <= statuses
    assert sizes[0] != sizes[1]


def test_autoclaw_resend_is_not_a_duplicate(gen: tuple[Path, dict[str, Any]]) -> None:
    big = gen[1]["autoclaw"]["accounts"][0]
    con = ro(gen[0] / big["db"])
    pairs = con.execute("SELECT a.run_id, b.run_id FROM work_runs a JOIN work_runs b ON a.session_id = b.session_id "
                        "AND a.text = b.text AND a.started_at < b.started_at WHERE a.status = 'completed'").fetchall()
    assert pairs
    first, second = pairs[0]
    rows = con.execute("SELECT run_id, entry_type FROM neutral_session_entries WHERE run_id IN (?,?) "
                       "ORDER BY session_seq", (first, second)).fetchall()
    answer_at = rows.index((first, "answer"))
    resend_at = rows.index((second, "request"))
    assert answer_at < resend_at  # an answer in between: a real resend, kept as a new request


def test_hot_wal_holds_rows_a_file_copy_would_miss(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    acc = m["autoclaw"]["accounts"][0]
    db = out / acc["db"]
    assert acc["hot_wal"] and Path(f"{db}-wal").stat().st_size > 0
    live = ro(db).execute("SELECT count(*) FROM neutral_session_entries").fetchone()[0]
    frozen = sqlite3.connect(f"file:{db}?immutable=1", uri=True).execute(
        "SELECT count(*) FROM neutral_session_entries").fetchone()[0]
    assert frozen < live


def test_memories_supersede_chains(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    mems = {x["memory_id"]: x for x in m["memories"]}
    assert len(mems) == m["counts"]["autoclaw_memories"]
    chained = [x for x in mems.values() if x["supersedes"]]
    assert chained
    for x in chained:
        assert mems[x["supersedes"]]["lifecycle"] == "superseded" and mems[x["supersedes"]]["account"] == x["account"]
    assert any(mems[x["supersedes"]]["supersedes"] for x in chained)  # a chain of three
    for acc in m["autoclaw"]["accounts"]:
        con = ro(out / acc["db"])
        rows = dict(con.execute("SELECT memory_id, supersedes_memory_id FROM memory_assets"))
        assert rows == {k: v["supersedes"] for k, v in mems.items() if v["account"] == acc["account"]}
        n_fts = con.execute("SELECT count(*) FROM memory_fts WHERE memory_fts MATCH 'content:nginx'").fetchone()[0]
        n_like = con.execute("SELECT count(*) FROM memory_assets WHERE content LIKE '%nginx%'").fetchone()[0]
        assert n_fts == n_like


def test_participations_and_failed_attempts(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    con = ro(out / m["autoclaw"]["accounts"][0]["db"])
    assert con.execute("SELECT count(*) FROM collaboration_run_agent_participations").fetchone()[0] >= 2
    assert con.execute("SELECT count(*) FROM collaboration_run_agent_attempts WHERE status='failed'").fetchone()[0] >= 1


def test_sessions_name_their_agent_in_every_variant(gen: tuple[Path, dict[str, Any]]) -> None:
    """capability_composition_json names the owner by id, by preset URI name, by label or not at all
    (then every run has a participation of the owner, which joined first); the manifest says which."""
    out, m = gen
    rules = {}
    for acc in m["autoclaw"]["accounts"]:
        con = ro(out / acc["db"])
        agents = dict(con.execute("SELECT agent_id, name FROM agents").fetchall())
        first = dict(con.execute("SELECT run_id, agent_id FROM (SELECT run_id, agent_id, row_number() OVER "
                                 "(PARTITION BY run_id ORDER BY created_at) AS n "
                                 "FROM collaboration_run_agent_participations) WHERE n = 1").fetchall())
        comps = dict(con.execute("SELECT session_id, capability_composition_json FROM work_sessions").fetchall())
        for t in (t for t in m["tasks"] if t["source"] == "autoclaw" and t["account"] == acc["account"]):
            comp, owner = json.loads(comps[t["session_id"]]), t["actor_id"].rsplit(":", 1)[1]
            rules[t["task_id"]] = rule = t["owner_rule"]
            assert comp["agentInstructions"], t["task_id"]
            if rule == "id":
                assert comp["presetRef"] == owner and comp["label"] == agents[owner], t["task_id"]
            elif rule == "name":
                assert "label" not in comp and comp["presetRef"].startswith("preset://autoclaw/"), t["task_id"]
                assert unquote(comp["presetRef"].rsplit("/", 1)[1]) == agents[owner].lower(), t["task_id"]
            elif rule == "label":
                assert "presetRef" not in comp and comp["label"] == agents[owner], t["task_id"]
            else:
                assert rule == "participation" and not {"presetRef", "label"} & set(comp), t["task_id"]
                assert first[t["run_id"]] == owner, t["task_id"]
    assert set(rules.values()) == {"id", "name", "label", "participation"}


# -- skills ------------------------------------------------------------------------------
def _front_matter(p: Path) -> dict[str, Any]:
    text = p.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("\n---\n", 1)[0][4:])


def test_skill_roots_front_matter_and_resources(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    kinds = {s["root_kind"] for s in m["skills"]}
    assert kinds == {"dsh_home", "workspace_dsh", "workspace_agents", "autoclaw"}
    keys: set[str] = set()
    binaries = 0
    for s in m["skills"]:
        folder = out / s["path"]
        if not s.get("folder_exists", True):
            assert s["status"] == "removed" and not folder.exists()
            continue
        fm = _front_matter(folder / "SKILL.md")
        assert fm["name"] == s["name"] and fm["description"]
        keys |= set(fm)
        for r in s["resources"]:
            data = (folder / r).read_bytes()
            binaries += data.startswith((b"\x89PNG", b"%PDF"))
    assert {"whenToUse", "metadata", "disable-model-invocation", "user-invocable", "license", "allowed-tools"} <= keys
    assert binaries >= 2
    used = [s for s in m["skills"] if s["used_in_tasks"]]
    assert used and all(s["status"] == "live" for s in used)


def test_autoclaw_ledger_bundles_tombstones(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    removed = [s for s in m["skills"] if s["status"] == "removed"]
    assert any(s["folder_exists"] for s in removed) and any(not s["folder_exists"] for s in removed)
    for acc in m["autoclaw"]["accounts"]:
        root = out / Path(acc["db"]).parent / "zwork-agent" / "skills"
        ledger = {x["skillId"]: x for x in json.loads((root / "skills-preinstall.json").read_text())}
        tomb = {x["skillId"] for x in json.loads((root / ".tombstones.json").read_text())}
        mine = {s["name"]: s for s in m["skills"] if s.get("account") == acc["account"]}
        assert set(ledger) == set(mine) and tomb == {n for n, s in mine.items() if s["status"] == "removed"}
        for n, s in mine.items():
            if s["folder_exists"]:
                sha = hashlib.sha256((out / s["path"] / "SKILL.md").read_bytes()).hexdigest()
                assert (sha == ledger[n]["contentSha256"]) == s["ledger_matches"]
        bundles = list(root.glob(".zwork-bundles/*/.zwork-bundle.json"))
        assert bundles and all(set(json.loads(b.read_text())["skills"]) <= set(mine) for b in bundles)


# -- workspaces / code ----------------------------------------------------------------------
def test_workspace_traps_and_code_list(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    traps = m["workspace_traps"]
    assert 4 <= len(m["workspaces"]) <= 6
    link = traps["outside_symlink"][0]
    lp = out / link["file"]
    assert lp.is_symlink() and not lp.resolve().is_relative_to((out / "workspaces").resolve())
    assert link["marker"] in lp.read_text()
    assert traps["big"][0]["bytes"] > 600_000
    for w in m["workspaces"]:
        assert "node_modules/" in (Path(w["path"]) / ".gitignore").read_text()
    code_files = {c["file"] for c in m["code"]}
    assert len(code_files) == m["counts"]["code_files_indexable"]
    for item in [*traps["ignored"], *traps["binary"], *traps["big"], link]:
        assert item["file"] not in code_files and (out / item["file"]).exists()
    markers = [t["marker"] for t in [*traps["ignored"], link]]
    for c in m["code"]:
        p = out / c["file"]
        assert p.is_file() and not p.is_symlink() and p.stat().st_size <= 512_000
        body = p.read_bytes().decode("utf-8-sig")
        assert not any(mk in body for mk in markers)
    mentions = {x for c in m["code"] for x in c["mentions"]}
    assert {"176.99.5.35", "iya.ru", "db-01.internal", "api.shop-example.com"} <= mentions
    symbols = {s for c in m["code"] for s in c["symbols"]}
    assert {"restore_mysql_access", "handleStatusCommand", "strip_bom", "create_order", "SiteMigrator"} - symbols == {
        "handleStatusCommand"}  # written only by a session, not present in the repo


# -- canaries --------------------------------------------------------------------------------
def _canary_text(out: Path, logs: dict[str, Any], w: dict[str, Any]) -> str:
    if w["source"] == "dsh":
        ev = next(e for e in logs[w["session_id"]][0][1:] if e["seq"] == w["seq"])
        return text_of(ev, w["field"])
    if w["source"] == "autoclaw":
        con = ro(out / w["file"])
        key = {"neutral_session_entries": "entry_id", "work_runs": "run_id", "memory_assets": "memory_id",
               "agents": "agent_id"}[w["table"]]
        (val,) = con.execute(f"SELECT {w['column']} FROM {w['table']} WHERE {key}=?", (w["row_id"],)).fetchone()
        return json.loads(val)["data"]["text"] if w["column"] == "payload" else val
    return (out / w["file"]).read_text(encoding="utf-8")


def test_canaries_planted_everywhere_and_redacted(gen: tuple[Path, dict[str, Any]], logs: dict[str, Any]) -> None:
    out, m = gen
    cans = m["canaries"]
    assert {c["where"]["source"] for c in cans} == {"dsh", "autoclaw", "skill", "code"}
    assert {c["where"].get("field") for c in cans if c["where"]["source"] == "dsh"} == {
        "user/message", "tool/result", "tool/call.arguments"}
    assert {"anthropic-key", "github-token", "slack-token", "url-password", "aws-access-key", "aws-secret",
            "private-key", "password", "password-ru", "email", "phone"} <= {c["kind"] for c in cans}
    for source in ("dsh", "autoclaw", "skill", "code"):  # every redaction kind reaches every kind of source
        assert set(BUNDLE_KINDS) <= {c["kind"] for c in cans if c["where"]["source"] == source}, source
    for c in cans:
        text = _canary_text(out, logs, c["where"])
        value = c["value"] if c["value"] in text else json.dumps(c["value"])[1:-1]  # JSON-encoded arguments
        assert value in text, c
        cleaned = redact(text) or ""
        assert value not in cleaned, c
        if c["kind"] == "email":
            assert c["value"].split("@")[0] not in cleaned


# -- broken and tiny ---------------------------------------------------------------------------
def test_broken_extras(gen: tuple[Path, dict[str, Any]]) -> None:
    out, m = gen
    kinds = {b["kind"]: b for b in m["broken"]}
    assert set(kinds) == {"corrupt_zstd", "bad_json_line", "invalid_front_matter"}
    with pytest.raises(zstandard.ZstdError):
        frames((out / kinds["corrupt_zstd"]["file"]).read_bytes())
    bad = kinds["bad_json_line"]
    lines = b"".join(frames((out / bad["file"]).read_bytes())).decode().rstrip("\n").split("\n")
    good = 0
    for i, line in enumerate(lines, 1):
        try:
            json.loads(line)
            good += i > 1
        except json.JSONDecodeError:
            assert i == bad["line"]
    assert good == bad["valid_events"]
    with pytest.raises(yaml.YAMLError):
        _front_matter(out / kinds["invalid_front_matter"]["file"])


def test_tiny_run_still_plants_every_structural_pitfall(tmp_path: Path) -> None:
    m = generate(tmp_path, sessions=6, seed=1)
    c = m["counts"]
    assert c["dsh_sessions"] == 6
    assert c["dsh_forked_sessions"] >= 1 and c["dsh_truncated_sessions"] >= 1 and c["dsh_replayed_events"] > 0
    assert {a["kind"] for a in m["actors"]} == {"root_session", "subagent", "team_member", "autoclaw_agent"}
    assert c["autoclaw_sessions_deleted"] >= 1 and any(x["supersedes"] for x in m["memories"])
    projections = {p.stem for p in (tmp_path / "dsh/storages/session_projcache/sessions").glob("*.json")}
    assert len(projections) < 6
    assert json.loads((tmp_path / "manifest.json").read_text()) == m


@pytest.mark.slow
def test_benchmark_scale_is_fast(tmp_path: Path) -> None:
    import time
    t0 = time.perf_counter()
    m = generate(tmp_path, sessions=200, events=100_000, seed=7)
    secs = time.perf_counter() - t0
    print(f"\ngenerate(sessions=200, events=100_000): {secs:.1f}s, {m['counts']['dsh_events_unique']} DSH events")
    assert secs < 40 and 85_000 <= m["counts"]["dsh_events_unique"] <= 115_000
