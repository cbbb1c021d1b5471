"""The built-in code index: walking (gitignore, binaries, size cap, links), chunking, incremental runs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import polars as pl
import pytest

from warehouse.core.paths import Paths
from warehouse.core.settings import Exclude, Index, Settings
from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.code import job as code
from warehouse.extract.code.chunk import chunk_text
from warehouse.extract.code.gitignore import IgnoreStack
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore

MAIN_PY = '''"""Module doc."""
import os

X = 1


@decorator
def first(a):
    return a


class Thing:
    def method(self):
        return 2


async def later():
    pass
'''

APP_JS = '''import x from "y";

/** Handles a request. */
export function handle(req) {
  return req;
}

export class Store {
  add(x) { return x; }
}
'''

GUIDE_MD = '''# Guide

Intro.

```sh
# not a heading
```

## Install

pip install it

### Deep
text
'''


def _write(p: Path, content: str | bytes) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")


def make_workspace(base: Path) -> Path:
    ws = base / "ws"
    _write(ws / ".gitignore", "build/\n*.log\n!keep.log\n/secret.txt\ndocs/**/draft.md\n# comment\n")
    _write(ws / "app" / "main.py", MAIN_PY)
    _write(ws / "web" / "app.js", APP_JS)
    _write(ws / "docs" / "guide.md", GUIDE_MD)
    _write(ws / "docs" / "a" / "b" / "draft.md", "# draft\n")
    _write(ws / "notes.txt", "".join(f"line {i}\n" for i in range(1, 131)))
    _write(ws / "build" / "out.py", "def built():\n    pass\n")
    _write(ws / "app.log", "log\n")
    _write(ws / "keep.log", "kept\n")
    _write(ws / "secret.txt", "top secret\n")
    _write(ws / "sub" / "secret.txt", "not anchored here\n")
    _write(ws / "sub" / ".gitignore", "*.tmp\n")
    _write(ws / "sub" / "x.tmp", "ignored by nested gitignore\n")
    _write(ws / "x.tmp", "not ignored at the root\n")
    _write(ws / "node_modules" / "lib" / "index.js", "function f() {}\n")
    _write(ws / ".git" / "config", "[core]\n")
    _write(ws / ".venv" / "lib.py", "def v():\n    pass\n")
    _write(ws / "blob.dat", b"\x00\x01\x02binary" * 10)
    _write(ws / "big.txt", "x" * 5000)
    _write(ws / "broken.py", "def oops(:\n    pass\n")
    _write(base / "outside" / "leak.py", "def leak():\n    pass\n")
    os.symlink(base / "outside" / "leak.py", ws / "link_out.py")
    os.symlink(base / "outside", ws / "dir_out")
    os.symlink(ws / "app" / "main.py", ws / "link_in.py")
    return ws


def register(base: Path, workspaces: list[dict[str, str]]) -> None:
    _write(base / "dsh" / "storages" / "workspace.json", json.dumps({"workspaces": workspaces}))


def settings(**exclude: list[str]) -> Settings:
    return Settings(index=Index(code_max_file_bytes=2000), exclude=Exclude(**exclude))


def run(base: Path, st: Settings | None = None) -> tuple[SourceReport, Lake, SourceStore]:
    paths = Paths.resolve(dsh_home=base / "dsh", autoclaw_root=base / "autoclaw", home=base / "akw")
    paths.ensure()
    st = st or settings()
    lake = Lake(paths.lake, redact=st.redact_secrets)
    store = SourceStore(paths.state_dir, code.SOURCE)
    rep = code.extract(ExtractContext(paths, st, lake, store))
    store.save()
    return rep, lake, store


def table(lake: Lake, name: str) -> pl.DataFrame:
    return pl.read_parquet(lake.glob(code.SOURCE, name)).sort(["rel_path", *(["start_line"] if
                                                                             name == "code_chunks" else [])])


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Path]:
    ws = make_workspace(tmp_path)
    register(tmp_path, [{"id": "w1", "path": str(ws)}])
    return tmp_path, ws


def test_walk_honours_gitignore_and_skips(indexed: tuple[Path, Path]) -> None:
    base, _ = indexed
    rep, lake, store = run(base)
    assert rep.units_changed == 1 and not rep.errors
    files = set(table(lake, "code_files")["rel_path"])
    assert files == {".gitignore", "app/main.py", "broken.py", "docs/guide.md", "keep.log", "link_in.py",
                     "notes.txt", "sub/.gitignore", "sub/secret.txt", "web/app.js", "x.tmp"}
    counts = store.units["w1"]["counts"]
    assert counts["binary"] == 1 and counts["too_big"] == 1 and counts["outside_link"] == 2
    # build/, app.log, secret.txt, docs/a/b/draft.md (via **), sub/x.tmp, node_modules, .git, .venv
    assert counts["ignored"] == 8
    assert counts["files"] == len(files) and counts["chunks"] == table(lake, "code_chunks").height


def test_python_symbols_and_line_ranges(indexed: tuple[Path, Path]) -> None:
    base, _ = indexed
    _, lake, _ = run(base)
    ch = table(lake, "code_chunks").filter(pl.col("rel_path") == "app/main.py")
    got = [(r["start_line"], r["end_line"], r["source_kind"], r["symbol"]) for r in ch.iter_rows(named=True)]
    assert got == [(1, 4, "window", None), (7, 9, "function", "first"), (12, 14, "class", "Thing"),
                   (17, 18, "function", "later")]
    first = ch.filter(pl.col("symbol") == "first").row(0, named=True)
    assert first["text"] == "@decorator\ndef first(a):\n    return a"
    assert first["chunk_id"] == "chunk:w1:app/main.py:7" and first["language"] == "python"
    assert first["workspace_path"].endswith("/ws")
    # a syntax error falls back to windows instead of failing the file
    broken = table(lake, "code_chunks").filter(pl.col("rel_path") == "broken.py")
    assert broken["source_kind"].to_list() == ["window"] and broken["end_line"].to_list() == [2]


def test_js_markdown_and_windows(indexed: tuple[Path, Path]) -> None:
    base, _ = indexed
    _, lake, _ = run(base)
    ch = table(lake, "code_chunks")
    js = ch.filter(pl.col("rel_path") == "web/app.js")
    assert [(r["start_line"], r["end_line"], r["symbol"]) for r in js.iter_rows(named=True)] == [
        (1, 1, None), (3, 6, "handle"), (8, 10, "Store")]
    md = ch.filter(pl.col("rel_path") == "docs/guide.md")
    assert md["symbol"].to_list() == ["Guide", "Install", "Deep"]
    assert set(md["source_kind"]) == {"heading"}
    assert md["start_line"].to_list() == [1, 9, 13] and md["end_line"].to_list() == [7, 11, 14]
    notes = ch.filter(pl.col("rel_path") == "notes.txt")
    assert [(r["start_line"], r["end_line"]) for r in notes.iter_rows(named=True)] == [(1, 60), (51, 110),
                                                                                     (101, 130)]
    assert notes.row(1, named=True)["text"].split("\n")[0] == "line 51"
    assert ch["chunk_id"].n_unique() == ch.height


def test_incremental_noop_and_single_file_change(indexed: tuple[Path, Path]) -> None:
    base, ws = indexed
    before = table(run(base)[1], "code_chunks")
    rep, lake, _ = run(base)
    assert rep.units_unchanged == 1 and rep.units_changed == 0 and lake.files_written == 0

    (ws / "web" / "app.js").write_text(APP_JS + "\nexport function extra() {\n  return 1;\n}\n")
    rep, lake, store = run(base)
    assert rep.units_changed == 1
    counts = store.units["w1"]["counts"]
    assert counts["rechunked"] == 1 and counts["reused"] == counts["files"] - 1
    after = table(lake, "code_chunks")
    others = pl.col("rel_path") != "web/app.js"
    assert after.filter(others).equals(before.filter(others))
    assert after.filter(~others)["symbol"].to_list() == [None, "handle", "Store", "extra"]

    (ws / "notes.txt").unlink()
    _, lake, _ = run(base)
    assert "notes.txt" not in set(table(lake, "code_files")["rel_path"])
    assert "notes.txt" not in set(table(lake, "code_chunks")["rel_path"])


def test_exclusions_and_vanished_workspaces(indexed: tuple[Path, Path], tmp_path: Path) -> None:
    base, ws = indexed
    _, lake, _ = run(base, settings(file_patterns=["*.txt"], paths=[str(ws / "docs")]))
    files = set(table(lake, "code_files")["rel_path"])
    assert "notes.txt" not in files and "sub/secret.txt" not in files and "docs/guide.md" not in files

    _, lake, _ = run(base, settings(workspaces=["w1"]))
    assert table(lake, "code_files").height == 0

    other = tmp_path / "other"
    _write(other / "a.py", "def a():\n    return 1\n")
    register(base, [{"id": "w2", "path": str(other)}])
    rep, lake, _ = run(base)
    assert set(table(lake, "code_files")["workspace_id"]) == {"w2"}

    _write(base / "dsh" / "storages" / "workspace.json", "{not json")
    rep, lake, _ = run(base)
    assert rep.degraded and rep.errors[0]["code"] == "KNOWLEDGE_SOURCE_CORRUPT"
    assert set(table(lake, "code_files")["workspace_id"]) == {"w2"}  # a broken registry keeps the index

    register(base, [{"id": "w2", "path": str(other)}, {"id": "gone", "path": str(tmp_path / "nope")}])
    rep, _, store = run(base)
    assert rep.units_failed == 1 and rep.errors[0]["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE"
    assert store.units["gone"]["status"] == "error"


def test_gitignore_semantics() -> None:
    ign = IgnoreStack().push("", "*.pyc\n/root_only\nlogs/\n!logs/keep\na/**/z\n**/deep\n\\#hash\nfoo/**\n")
    assert ign.ignored("x/y.pyc", False)
    assert ign.ignored("root_only", False) and not ign.ignored("sub/root_only", False)
    assert ign.ignored("logs", True) and not ign.ignored("logs", False)  # dir-only pattern
    assert ign.ignored("a/z", False) and ign.ignored("a/b/c/z", False) and not ign.ignored("b/z", False)
    assert ign.ignored("x/y/deep", True) and ign.ignored("#hash", False)
    assert ign.ignored("foo/bar", False) and not ign.ignored("foo", True)
    nested = ign.push("pkg", "*.txt\n!keep.txt\n")
    assert nested.ignored("pkg/a.txt", False) and not nested.ignored("pkg/keep.txt", False)
    assert not nested.ignored("a.txt", False)


def test_chunks_cover_every_nonblank_line() -> None:
    text = "\n".join(["import os", "", *[f"def f{i}():\n    return {i}\n" for i in range(30)], "x = 1", ""])
    chunks = chunk_text(text, "python")
    lines = text.split("\n")
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(n in covered for n, line in enumerate(lines, 1) if line.strip())
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1:c.end_line])
    crlf = chunk_text("def a():\r\n    pass\r\n\r\ndef b():\r\n    pass\r\n", "python")
    assert [(c.start_line, c.end_line, c.symbol) for c in crlf] == [(1, 2, "a"), (4, 5, "b")]


@pytest.mark.slow
def test_five_thousand_files_chunk_in_seconds(tmp_path: Path) -> None:
    import time

    ws = tmp_path / "big"
    for i in range(5000):
        d = ws / f"pkg{i % 40}"
        d.mkdir(parents=True, exist_ok=True)
        ext = (".py", ".js", ".md", ".txt")[i % 4]
        body = {".py": MAIN_PY, ".js": APP_JS, ".md": GUIDE_MD, ".txt": "plain text\n" * 20}[ext]
        (d / f"f{i}{ext}").write_text(body)
    register(tmp_path, [{"id": "big", "path": str(ws)}])
    t0 = time.perf_counter()
    rep, _, store = run(tmp_path, Settings())
    elapsed = time.perf_counter() - t0
    assert store.units["big"]["counts"]["files"] == 5000 and rep.units_changed == 1
    assert elapsed < 10, f"5k files took {elapsed:.1f}s"
