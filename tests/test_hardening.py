"""Hardening (issue 13): links out of a source root, keep-last-good everywhere, bad session files
counted, unreadable files, and oversized request documents."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import akw_fixtures
import pytest

from warehouse.api import Warehouse
from warehouse.core.errors import KnowledgeError

AKW = [sys.executable, "-m", "warehouse"]
PASSWD_MARK = "root:x:0:0"


@pytest.fixture(scope="module")
def gen(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hard")
    akw_fixtures.generate(out, sessions=6, seed=11)
    return out


@pytest.fixture()
def src(gen: Path, tmp_path: Path) -> Path:
    """A private copy of the generated sources (the registry still points at the shared workspaces)."""
    dst = tmp_path / "src"
    for name in ("dsh", "autoclaw"):
        shutil.copytree(gen / name, dst / name, symlinks=True)
    return dst


def open_wh(src: Path, tmp_path: Path) -> Warehouse:
    return Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "akw")


def units(wh: Warehouse, source: str) -> dict[str, dict[str, Any]]:
    return {u["unit"]: u for u in wh.sources()["units"] if u["source"] == source}


def indexed_text(wh: Warehouse, needle: str) -> int:
    return wh.sql(f"SELECT count(*) FROM ak_document WHERE contains(text, '{needle}')")["rows"][0][0]


def test_a_skill_md_linked_to_etc_passwd_is_skipped_never_indexed(src: Path, tmp_path: Path) -> None:
    if not Path("/etc/passwd").is_file():
        pytest.skip("no /etc/passwd")
    evil = src / "dsh" / "skills" / "evil"
    evil.mkdir()
    (evil / "SKILL.md").symlink_to("/etc/passwd")
    outside = tmp_path / "outside-skills" / "sneaky"
    outside.mkdir(parents=True)
    (outside / "SKILL.md").write_text("---\nname: sneaky\ndescription: from outside\n---\nsneaky body\n")
    (src / "dsh" / "skills" / "linked").symlink_to(outside, target_is_directory=True)
    wh = open_wh(src, tmp_path)
    rep = wh.reindex()
    skills = next(s for s in rep["extract"]["sources"] if s["source"] == "skills")
    assert skills["units"]["skipped"] == 2, skills["skipped"]  # the linked file and the linked folder
    assert all("link out of the skills root" in s["reason"] for s in skills["skipped"])
    assert [u["status"] for k, u in units(wh, "skills").items() if k.endswith(":evil")] == ["skipped"]
    assert [u["status"] for k, u in units(wh, "skills").items() if k.endswith(":linked")] == ["skipped"]
    names = {r[0] for r in wh.sql("SELECT name FROM ak_skill")["rows"]}
    assert "evil" not in names and "sneaky" not in names
    assert indexed_text(wh, PASSWD_MARK) == 0 and indexed_text(wh, "sneaky body") == 0


def test_a_session_log_linked_from_outside_is_skipped(src: Path, tmp_path: Path) -> None:
    log = next((src / "dsh" / "sessions").glob("*/*/session.v4.jsonl.zstd"))
    moved = tmp_path / "elsewhere.zstd"
    shutil.move(log, moved)
    log.symlink_to(moved)
    wh = open_wh(src, tmp_path)
    rep = wh.reindex()
    dsh = next(s for s in rep["extract"]["sources"] if s["source"] == "dsh")
    assert dsh["units"]["skipped"] == 1 and "link out" in dsh["skipped"][0]["reason"]
    sid = log.parent.name
    assert units(wh, "dsh")[f"session:{sid}"]["status"] == "skipped"
    assert wh.sql(f"SELECT count(*) FROM ak_episode WHERE session_id = '{sid}'")["rows"][0][0] == 0


def test_a_symlink_loop_among_skill_folders_hides_no_skill(src: Path, tmp_path: Path) -> None:
    """Issue 25: `loopA -> loopB -> loopA` in the skills root made every home skill vanish, exit 0."""
    wh = open_wh(src, tmp_path)
    wh.reindex()
    home_skills = {k for k, u in units(wh, "skills").items() if k.startswith("dsh_home:") and u["status"] == "ok"}
    assert len(home_skills) >= 3
    root = src / "dsh" / "skills"
    (root / "loopA").symlink_to(root / "loopB", target_is_directory=True)
    (root / "loopB").symlink_to(root / "loopA", target_is_directory=True)
    wh.reindex()
    after = {k for k, u in units(wh, "skills").items() if k.startswith("dsh_home:") and u["status"] == "ok"}
    assert after == home_skills
    assert wh.sql("SELECT count(*) FROM ak_skill WHERE root_kind = 'dsh_home'")["rows"][0][0] >= len(home_skills)


def test_a_broken_skill_md_keeps_its_last_good_data_and_says_so(src: Path, tmp_path: Path) -> None:
    wh = open_wh(src, tmp_path)
    wh.reindex()
    before = wh.sql("SELECT skill_id, description FROM ak_skill WHERE name = 'postgres-backup'")["rows"]
    assert before
    (src / "dsh" / "skills" / "postgres-backup" / "SKILL.md").write_text("---\nname: [unclosed\n---\nbody\n")
    wh.reindex()
    assert wh.sql("SELECT skill_id, description FROM ak_skill WHERE name = 'postgres-backup'")["rows"] == before
    bad = [u for k, u in units(wh, "skills").items() if k.startswith("dsh_home:") and k.endswith(":postgres-backup")]
    assert bad[0]["status"] == "error" and bad[0]["error_code"] == "KNOWLEDGE_SOURCE_CORRUPT"
    assert "last good data kept" in bad[0]["error"]
    assert wh.status()["state"] == "degraded"


def _sessions(src: Path) -> list[Path]:
    return sorted((src / "dsh" / "sessions").glob("*/*/session.v4.jsonl.zstd"))


def test_empty_and_header_less_session_logs_are_counted(src: Path, tmp_path: Path) -> None:
    import zstandard

    empty, headless = _sessions(src)[:2]
    body = zstandard.ZstdDecompressor().stream_reader(headless.read_bytes(), read_across_frames=True).read()
    headless.write_bytes(zstandard.ZstdCompressor().compress(body.split(b"\n", 1)[1]))
    empty.write_bytes(b"")
    proj = src / "dsh" / "storages" / "session_projcache" / "sessions" / f"{headless.parent.name}.json"
    proj.write_text("{broken json", encoding="utf-8")
    wh = open_wh(src, tmp_path)
    wh.reindex()
    u = units(wh, "dsh")
    e = u[f"session:{empty.parent.name}"]
    assert e["status"] == "error" and e["error_code"] == "KNOWLEDGE_SOURCE_CORRUPT" and "empty" in e["error"]
    h = u[f"session:{headless.parent.name}"]
    assert h["status"] == "ok" and h["counts"]["header_missing"] == 1 and h["counts"]["lines_bad"] >= 1
    assert h["counts"]["projection_bad"] == 1
    rows = wh.status()["sources"]["dsh"]["rows"]
    assert rows["header_missing"] == 1 and rows["projection_bad"] == 1


def _first_log_replaced(src: Path, tmp_path: Path, replace: Callable[[Path], None]) -> dict[str, Any]:
    """Build, put `replace(log)` in place of the first session log, reindex on a thread (a hang fails the
    test instead of blocking it); the unit's state after, and whether its events were kept."""
    wh = open_wh(src, tmp_path)
    wh.reindex()
    log = _sessions(src)[0]
    sid = log.parent.name
    count = f"SELECT count(*) FROM ak_event WHERE session_id = '{sid}'"
    n = wh.sql(count)["rows"][0][0]
    log.unlink()
    replace(log)
    done: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: done.append(wh.reindex()), daemon=True)
    worker.start()
    worker.join(120)
    assert done, "reindex hung"
    return {"unit": units(wh, "dsh")[f"session:{sid}"], "kept": wh.sql(count)["rows"][0][0] == n > 0}


def test_an_unreadable_session_log_is_source_unavailable_and_keeps_its_data(src: Path, tmp_path: Path) -> None:
    r = _first_log_replaced(src, tmp_path, lambda log: log.mkdir())  # a folder: unreadable even for root
    assert r["unit"]["status"] == "error" and r["unit"]["error_code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE"
    assert r["kept"]


def test_a_fifo_in_place_of_a_session_log_is_its_units_error_and_never_blocks(src: Path, tmp_path: Path) -> None:
    """Issue 25: `mkfifo …/session.v4.jsonl.zstd` blocked `akw reindex` in open() forever."""
    r = _first_log_replaced(src, tmp_path, os.mkfifo)
    assert r["unit"]["status"] == "error" and r["unit"]["error_code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE"
    assert "not a regular file" in r["unit"]["error"] and r["kept"]


def test_a_fifo_in_a_workspace_is_counted_and_never_blocks(gen: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    shutil.copytree(gen / "workspaces" / "text-tools", ws)
    os.mkfifo(ws / "pipe.py")
    dst = tmp_path / "src"
    for name in ("dsh", "autoclaw"):
        shutil.copytree(gen / name, dst / name, symlinks=True)
    reg = dst / "dsh" / "storages" / "workspace.json"
    data = json.loads(reg.read_text())
    for w in data["workspaces"]:
        if w["path"].endswith("text-tools"):
            w["path"] = str(ws)
    reg.write_text(json.dumps(data))
    wh = open_wh(dst, tmp_path)
    t0 = time.monotonic()
    wh.reindex()
    assert time.monotonic() - t0 < 120
    code = next(u for u in units(wh, "code").values() if u["unit"].startswith("text-tools"))
    assert code["counts"]["not_a_file"] == 1


# -- request size cap ---------------------------------------------------------------------------
@pytest.mark.parametrize("cmd", ["search", "dispatch"])
def test_request_from_dev_zero_is_refused_fast(cmd: str, tmp_path: Path) -> None:
    env = {**os.environ, "AKW_HOME": str(tmp_path / "akw")}
    t0 = time.monotonic()
    p = subprocess.run([*AKW, cmd, "--request", "/dev/zero", "--json"], env=env, capture_output=True, text=True,
                       timeout=60)
    assert time.monotonic() - t0 < 30
    assert p.returncode != 0
    err = json.loads(p.stdout)["errors"][0]
    assert err["code"] == "KNOWLEDGE_LIMIT" and err["limit"] == "request_bytes"


def test_a_huge_request_file_and_string_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"schema": "knowledge.search/v1", "query": "' + "x" * 3_000_000 + '"}')
    env = {**os.environ, "AKW_HOME": str(tmp_path / "akw")}
    p = subprocess.run([*AKW, "search", "--request", str(big), "--json"], env=env, capture_output=True, text=True)
    assert json.loads(p.stdout)["errors"][0]["code"] == "KNOWLEDGE_LIMIT"
    p = subprocess.run([*AKW, "search", "--request", "-", "--json"], env=env, input=big.read_text(),
                       capture_output=True, text=True)
    assert json.loads(p.stdout)["errors"][0]["code"] == "KNOWLEDGE_LIMIT"
    with pytest.raises(KnowledgeError) as e:
        Warehouse.open(home=tmp_path / "akw").search(big.read_text())
    assert e.value.code == "KNOWLEDGE_LIMIT"


def test_a_file_that_cannot_be_opened_as_a_file_is_unreadable_not_binary(tmp_path: Path) -> None:
    """The walker lists regular files; one replaced meanwhile by a FIFO or a folder is UNREADABLE at
    once (never blocks on the FIFO) and not counted as "binary"."""
    from warehouse.extract.code.job import UNREADABLE, _chunk_file
    from warehouse.extract.code.walk import FileStat
    from warehouse.extract.registry import Workspace

    ws = Workspace("w", str(tmp_path))
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "dir.py").mkdir()
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    t0 = time.monotonic()
    assert _chunk_file(ws, FileStat("pipe.py", str(tmp_path / "pipe.py"), 0, 0)) is UNREADABLE
    assert _chunk_file(ws, FileStat("dir.py", str(tmp_path / "dir.py"), 0, 0)) is UNREADABLE
    assert _chunk_file(ws, FileStat("bin.dat", str(tmp_path / "bin.dat"), 3, 0)) is None
    assert time.monotonic() - t0 < 5


def test_a_copied_autoclaw_account_is_indexed_once_more_and_named(src: Path, tmp_path: Path) -> None:
    """Issue 25: `cp -a accounts/A accounts/A-copy` failed every build (KNOWLEDGE_INTERNAL on
    ak_event.unique(event_id): AutoClaw session ids are an account's own). Both accounts are indexed, every
    id stays unique, and the run names the copy with a coded warning (`akw status`)."""
    accounts = src / "autoclaw" / "accounts"
    original = sorted(p.name for p in accounts.iterdir() if p.is_dir())[0]
    shutil.copytree(accounts / original, accounts / f"{original}-copy", symlinks=True)
    wh = open_wh(src, tmp_path)
    run = wh.reindex()
    assert run["outcome"] == "published", run
    assert wh.sql("SELECT count(*) - count(DISTINCT event_id) FROM ak_event")["rows"] == [[0]]
    both = wh.sql("SELECT account, count(*) FROM ak_event WHERE source = 'autoclaw' AND account IN "
                  f"('{original}', '{original}-copy') GROUP BY 1 ORDER BY 1")["rows"]
    assert len(both) == 2 and both[0][1] == both[1][1] > 0
    [warning] = wh.status()["last_run"]["warnings"]
    assert warning["code"] == "KNOWLEDGE_SOURCE_CORRUPT" and warning["source"] == "autoclaw"
    assert warning["unit"] == f"{original}-copy" and f"of account {original}:" in warning["message"]
    shutil.rmtree(accounts / f"{original}-copy")  # the copy moved out: the warning goes with it
    assert wh.reindex()["outcome"] == "published" and "warnings" not in wh.status()["last_run"]


def test_a_wal_without_its_shm_is_read_as_far_as_it_can_be_and_said_so(src: Path, tmp_path: Path) -> None:
    """Issue 25: a `-wal` left without its `-shm` (a crash) is opened immutable, so the changes committed
    in it are not read: the unit said `ok` and nothing more. Every run now says so, by unit, and the
    source files stay exactly as they were (no `-shm` is created)."""
    [wal] = sorted((src / "autoclaw" / "accounts").glob("*/runtime/runtime.sqlite-wal"))[:1]
    Path(f"{str(wal)[:-4]}-shm").unlink()
    account = wal.parent.parent.name
    before = sorted(p.name for p in wal.parent.iterdir())
    wh = open_wh(src, tmp_path)
    for _ in range(2):  # the read, then a run with nothing new: still said
        assert wh.reindex()["outcome"] in ("published", "noop")
        [w] = [w for w in wh.status()["last_run"].get("warnings", []) if w["unit"] == account]
        assert w["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE" and w["source"] == "autoclaw"
        assert f"({wal.stat().st_size} bytes) has no -shm" in w["message"]
    assert units(wh, "autoclaw")[account]["status"] == "ok"  # what it could read is indexed
    assert sorted(p.name for p in wal.parent.iterdir()) == before


def _without_dac(cmd: list[str]) -> list[str]:
    """`cmd` as a process that file modes apply to: as root, with the capabilities that bypass them out of its
    bounding set (util-linux `setpriv`, in every Debian); as anyone else, as it is."""
    if os.geteuid() != 0:
        return cmd
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--", *cmd]


def test_folders_it_may_not_read_are_coded_errors_that_keep_their_data(gen: Path, tmp_path: Path) -> None:
    """Issue 25: a session folder, a skill folder or a workspace subfolder it may not read (mode 000, not as
    root) was silently absent: the session and the skill vanished from the index with the source `ok`.
    Each is now a coded per-unit error (`akw sources`, `akw status` degraded) and keeps its last good rows."""
    ws = tmp_path / "ws"
    shutil.copytree(gen / "workspaces" / "infra-ops", ws, symlinks=True)
    dst = tmp_path / "src"
    for name in ("dsh", "autoclaw"):
        shutil.copytree(gen / name, dst / name, symlinks=True)
    reg = dst / "dsh" / "storages" / "workspace.json"
    data = json.loads(reg.read_text())
    [entry] = [w for w in data["workspaces"] if w["path"].endswith("infra-ops")]
    entry["path"] = str(ws)
    reg.write_text(json.dumps(data))
    wh = open_wh(dst, tmp_path)
    assert wh.reindex()["outcome"] == "published"
    session = _sessions(dst)[0].parent
    skill = sorted(p.parent for p in (dst / "dsh" / "skills").glob("*/SKILL.md"))[0]
    sub = sorted(p for p in ws.iterdir() if p.is_dir() and not p.name.startswith("."))[0]
    count = {"events": f"SELECT count(*) FROM ak_event WHERE session_id = '{session.name}'",
             "skill": f"SELECT count(*) FROM ak_skill WHERE path LIKE '%/{skill.name}/SKILL.md'",
             "code": f"SELECT count(*) FROM ak_document WHERE lane = 'code' AND path LIKE '{sub.name}/%'"}
    before = {k: wh.sql(q)["rows"][0][0] for k, q in count.items()}
    assert all(before.values()), before
    env = {**os.environ, "AKW_HOME": str(wh.paths.home), "DSH_HOME": str(dst / "dsh"),
           "AUTOCLAW_ROOT": str(dst / "autoclaw")}
    for folder in (session, skill, sub):
        folder.chmod(0)
    try:
        for _ in range(2):  # the run that finds them, then one with nothing new: said again, kept again
            p = subprocess.run(_without_dac([*AKW, "reindex", "--json"]), env=env, capture_output=True, text=True)
            assert p.returncode == 0, p.stdout + p.stderr
            errors = {(e["unit"], e["code"]) for e in wh.status()["errors"]}
            assert (f"session:{session.name}", "KNOWLEDGE_SOURCE_UNAVAILABLE") in errors, errors
            assert any(u.endswith(f":{skill.name}") and c == "KNOWLEDGE_SOURCE_UNAVAILABLE" for u, c in errors)
            assert (f"{entry['id']}:{sub.name}/", "KNOWLEDGE_SOURCE_UNAVAILABLE") in errors, errors
            assert wh.status()["state"] == "degraded"
            assert {k: wh.sql(q)["rows"][0][0] for k, q in count.items()} == before
    finally:
        for folder in (session, skill, sub):
            folder.chmod(0o755)
