"""Write the real SWE-agent demonstration trajectories (this folder, README.md) as a DSH home.

One session per trajectory: the header, harness injections (agent instructions, runtime
context), the task as the human message, per step an assistant message (the step's thought),
a tool call (the step's action) and its result (the observation), then a final answer; one
workspace per repository / challenge in `storages/workspace.json`. Written with the
generator's own writer (`SessionLog`), so the bytes are exactly the format of SOURCES.md
§1.1-1.3. Deterministic: the clock and ids come from the trajectory id, never the wall clock;
the same input into the same `out` gives the same bytes (paths in the files name `out`).

`convert(out)` writes `out/dsh/` and `out/manifest.json` (ground truth for the golden set's
`real_data` slice: one task per trajectory, `template` = the trajectory id).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from ..common import BASE_MS, DAY_MS, hexid, iso, rng_for, write_json
from ..dsh_log import SessionLog, compressor

HERE = Path(__file__).resolve().parent
TRAJECTORIES = HERE / "trajectories"
SCHEMA = "akw.realdata/v1"
SOURCE = {"repo": "princeton-nlp/SWE-agent", "folder": "trajectories/demonstrations", "licence": "MIT",
          "copyright": "Copyright (c) 2024 John Yang, Carlos E. Jimenez, Alexander Wettig, Shunyu Yao, "
                       "Karthik Narasimhan, Ofir Press"}
START_MS = BASE_MS + 60 * DAY_MS  # after the synthetic set's 45 days, so the two never interleave
INSTRUCTIONS = ("You are an autonomous programmer working in a command line with a file editor "
                "(SWE-agent demonstration, replayed into DSH).")
ERROR_MARKS = ("Traceback (most recent call last)", "Error:", "ERRORS:", "command not found", "Wrong flag",
               "NOT been applied", "EXECUTION TIMED OUT")
FILE_VERBS = {"create": "write", "insert": "edit", "edit": "edit", "open": "read"}


def load(src: Path = TRAJECTORIES) -> list[dict[str, Any]]:
    """The trajectories, ordered by id."""
    trajs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(Path(src).glob("*.json"))]
    return sorted(trajs, key=lambda t: t["id"])


def fingerprint(trajs: list[dict[str, Any]]) -> str:
    """What the converted home depends on: the input and this converter's schema."""
    blob = json.dumps([SCHEMA, trajs], ensure_ascii=False, sort_keys=True).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _basename(path: str) -> str:
    return path.strip("\"'").rstrip("/").rsplit("/", 1)[-1]


def tool_of(action: str, open_file: str | None, cwd: str) -> tuple[str, dict[str, Any], str | None]:
    """(DSH tool name, arguments, the file now open) of one SWE-agent action."""
    verb, _, rest = action.strip().partition(" ")
    if verb in ("create", "open") and rest:
        path = rest.split()[0].strip("\"'")
        full = path if path.startswith("/") else f"{cwd}/{path}"
        return FILE_VERBS[verb], {"file_path": full}, full
    if verb in ("edit", "insert") and open_file:
        return "edit", {"file_path": open_file, "edit": rest}, open_file
    if verb == "submit":
        return "submit", {"submission": rest.strip()}, open_file
    return "bash", {"command": action.strip()}, open_file


def _session(t: dict[str, Any], n: int, ws: dict[str, Any], cctx: Any) -> tuple[bytes, dict[str, Any], SessionLog]:
    rng = rng_for(0, "realdata", t["id"])
    sid = f"session-{hexid(rng, 16)}"
    cwd = ws["path"]
    log = SessionLog(sid, cwd, START_MS + n * DAY_MS, None, "standard", rng, model="swe-agent-demonstration")
    log.inject("agent-instructions", INSTRUCTIONS)
    log.inject("runtime-context", f"cwd: {cwd}\nos: linux\nshell: bash")
    log.emit("session/title", {"title": t["title"]}, 20, 200)
    log.title = t["title"]
    log.frame_break()
    first = log.human_message(t["task"])
    started = log.t
    log.turns = 1
    open_file, files, failed = None, [], 0
    steps = t["steps"]
    for i, st in enumerate(steps, 1):
        name, args, open_file = tool_of(st["action"], open_file, cwd)
        if "file_path" in args and _basename(args["file_path"]) not in files:
            files.append(_basename(args["file_path"]))
        log.assistant(1, i, "", st["thought"].strip() or st["action"].strip().splitlines()[0], "tool-calls")
        cid, _ = log.tool_call(name, json.dumps(args, ensure_ascii=False))
        err = any(m in st["observation"] for m in ERROR_MARKS)
        failed += err
        log.tool_result(cid, name, st["observation"], err)
        log.last_step = i
    final = steps[-1]["observation"].strip() if steps and steps[-1]["action"].startswith("submit") else ""
    answer = f"Submitted: {steps[-1]['action'].strip()}" + (f"\n{final}" if final else "")
    last = log.assistant(1, len(steps) + 1, "", answer, "stop")
    log.frame_break()
    data, _frames = log.to_bytes(cctx)
    task = {"task_id": f"task:{t['id']}", "template": t["id"], "kind": t["kind"], "title": t["title"],
            "language": "en", "outcome": "success", "workspace_id": ws["id"], "source": "harness",
            "actor_id": f"actor:harness:root:{sid}", "session_id": sid, "seq_range": [first, last],
            "started_at": iso(started), "finished_at": iso(log.t), "identifiers": files, "steps": len(steps),
            "failed_steps": failed, "source_path": t["source_path"], "source_commit": t.get("source_commit")}
    return data, task, log


def convert(out: Path, src: Path = TRAJECTORIES) -> dict[str, Any]:
    """Write `out/dsh`, an empty `out/autoclaw` (an AutoClaw root with no accounts: these agents never
    ran there) and `out/manifest.json` from the trajectories in `src`; returns the manifest."""
    out = Path(out).absolute()
    trajs = load(src)
    dsh = out / "dsh"
    shutil.rmtree(dsh, ignore_errors=True)
    (out / "autoclaw").mkdir(parents=True, exist_ok=True)
    cctx = compressor()
    spaces: dict[str, dict[str, Any]] = {}
    for t in trajs:
        name = t["workspace"]
        if name not in spaces:
            rng = rng_for(0, "realdata-ws", name)
            folder = out / "workspaces" / name  # an (empty) workspace folder: the code lane finds it
            folder.mkdir(parents=True, exist_ok=True)
            spaces[name] = {"name": name, "id": f"{name}-{hexid(rng, 8)}", "path": str(folder),
                            "title": name, "sessions": []}
    tasks, actors, lines, events = [], [], 0, 0
    for n, t in enumerate(trajs):
        ws = spaces[t["workspace"]]
        data, task, log = _session(t, n, ws, cctx)
        path = dsh / "sessions" / ws["id"] / task["session_id"] / "session.v4.jsonl.zstd"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        ws["sessions"].append(task["session_id"])
        write_json(dsh / "storages" / "session_projcache" / "sessions" / f"{task['session_id']}.json", {
            "id": task["session_id"], "version": 4, "title": t["title"], "workspace": ws["id"], "cwd": ws["path"],
            "createdAt": log.created, "updatedAt": log.t,
            "stats": {"events": log.own_events, "turns": 1, "toolCalls": log.tool_calls},
            "tokens": {"input": log.tokens[0], "output": log.tokens[1]}, "agentTeam": None, "subagent": None,
            "permissions": {"mode": "ask", "allow": []}, "todos": [], "plan": {"steps": []},
            "sessionListMetadata": {"archived": False, "pinned": False}})
        tasks.append(task)
        actors.append({"actor_id": task["actor_id"], "kind": "root_session", "source": "harness", "name": t["title"],
                       "session_id": task["session_id"], "parent_session_id": None, "account": None,
                       "agent_id": None})
        lines += log.line_count()
        events += log.own_events
    write_json(dsh / "storages" / "workspace.json", {"workspaces": [
        {"id": w["id"], "path": w["path"], "title": w["title"], "sessionIds": sorted(w["sessions"]),
         "archived": False, "pinned": False} for w in spaces.values()]})
    manifest = {"schema": SCHEMA, "fingerprint": fingerprint(trajs), "source": SOURCE,
                "workspaces": [{"name": w["name"], "id": w["id"], "path": w["path"]} for w in spaces.values()],
                "tasks": tasks, "actors": actors, "skills": [], "code": [],
                "trajectories": {t["template"]: t["session_id"] for t in tasks},
                "counts": {"dsh_sessions": len(tasks), "dsh_lines_total": lines, "dsh_events_unique": events,
                           "dsh_human_messages": len(tasks)}}
    write_json(out / "manifest.json", manifest)
    return manifest


def ensure_converted(out: Path, src: Path = TRAJECTORIES) -> dict[str, Any]:
    """The manifest of `out`, converting first unless it holds these trajectories (homes `akw-*` then go)."""
    out = Path(out).absolute()
    mf = out / "manifest.json"
    if mf.exists():
        manifest = json.loads(mf.read_text(encoding="utf-8"))
        if manifest.get("fingerprint") == fingerprint(load(src)):
            (out / "autoclaw").mkdir(exist_ok=True)  # made by an older convert: the empty root was not written
            return manifest
    for home in sorted(out.glob("akw-*")):
        shutil.rmtree(home, ignore_errors=True)
    return convert(out, src)


def available(src: Path = TRAJECTORIES) -> bool:
    return Path(src).is_dir() and any(Path(src).glob("*.json"))


if __name__ == "__main__":  # python -m akw_fixtures.realdata.convert OUT
    import sys

    m = convert(Path(sys.argv[1]))
    print(json.dumps(m["counts"]))
