"""Skills extractor: real skill catalogues as-is, hand-made edge cases, AutoClaw ledger/bundles/tombstones."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import polars as pl
import pytest

from warehouse.core.paths import Paths
from warehouse.core.settings import Exclude, Settings, Sources
from warehouse.extract.base import ExtractContext, SourceReport
from warehouse.extract.skills import job as skills
from warehouse.extract.skills.parse import parse_skill_md, split_tools
from warehouse.home.lake import Lake
from warehouse.home.state import SourceStore

REAL = Path("/work/shared/realdata/skills")
REAL_DIRS = [REAL / "anthropic", REAL / "superpowers"]


def _write(p: Path, content: str | bytes) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")


def skill_md(name: str, description: str = "Does things.", extra: str = "", body: str = "# Body\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}"


def run(base: Path, extra_dirs: list[Path] | None = None, **exclude: list[str]
        ) -> tuple[SourceReport, Lake, SourceStore]:
    paths = Paths.resolve(dsh_home=base / "dsh", autoclaw_root=base / "autoclaw", home=base / "akw")
    paths.ensure()
    st = Settings(sources=Sources(extra_skill_dirs=[str(d) for d in extra_dirs or []]),
                  exclude=Exclude(**exclude))
    lake = Lake(paths.lake, redact=st.redact_secrets)
    store = SourceStore(paths.state_dir, skills.SOURCE)
    rep = skills.extract(ExtractContext(paths, st, lake, store))
    store.save()
    return rep, lake, store


def table(lake: Lake, name: str) -> pl.DataFrame:
    df = pl.read_parquet(lake.glob(skills.SOURCE, name))
    return df.sort(df.columns[:2])


def by_name(df: pl.DataFrame) -> dict[str, dict]:
    return {r["name"]: r for r in df.iter_rows(named=True)}


# -- the real catalogues -------------------------------------------------------------------
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[SourceReport, Lake]:
    base = tmp_path_factory.mktemp("real")
    rep, lake, _ = run(base, REAL_DIRS)
    return rep, lake


def test_real_skills_all_parsed(real: tuple[SourceReport, Lake]) -> None:
    rep, lake = real
    assert not rep.errors and rep.units_failed == 0
    sk = table(lake, "skills")
    folders = sorted(p.parent.name for d in REAL_DIRS for p in d.glob("*/SKILL.md"))
    assert sorted(sk["name"]) == folders and len(folders) == 24
    assert sk["description"].null_count() == 0 and (sk["description"].str.len_chars() > 20).all()
    assert sk["when_to_use"].null_count() == sk.height  # none of them has whenToUse
    assert set(sk["root_kind"]) == {"extra"} and set(sk["status"]) == {"live"}
    assert set(sk["skill_id"]) == {f"skill:extra:{n}" for n in folders}
    row = by_name(sk)["mcp-builder"]
    raw = (REAL / "anthropic" / "mcp-builder" / "SKILL.md").read_bytes()
    assert row["content_hash"] == "sha256:" + hashlib.sha256(raw).hexdigest() and row["size"] == len(raw)
    assert row["license"] == "Complete terms in LICENSE.txt" and row["body"].lstrip().startswith("#")
    assert row["path"] == str(REAL / "anthropic" / "mcp-builder" / "SKILL.md")


def test_real_resources_listed_never_embedded(real: tuple[SourceReport, Lake]) -> None:
    _, lake = real
    res = table(lake, "skill_resources")
    pdf_path = REAL / "anthropic" / "theme-factory" / "theme-showcase.pdf"
    pdf = res.filter(pl.col("rel_path") == "theme-showcase.pdf").row(0, named=True)
    pdf_bytes = pdf_path.read_bytes()
    assert pdf["skill_id"] == "skill:extra:theme-factory" and pdf["is_binary"] is True
    assert pdf["size"] == len(pdf_bytes) and pdf["sha256"] == hashlib.sha256(pdf_bytes).hexdigest()
    assert "themes/ocean-depths.md" in set(res.filter(pl.col("skill_id") == "skill:extra:theme-factory")["rel_path"])
    assert "SKILL.md" not in set(res["rel_path"])
    # every listed resource exists; no text resource is mistaken for binary
    root_of = {r["skill_id"]: Path(r["path"]).parent for r in table(lake, "skills").iter_rows(named=True)}
    for r in res.iter_rows(named=True):
        assert (root_of[r["skill_id"]] / r["rel_path"]).is_file()
        assert r["is_binary"] == r["rel_path"].endswith(".pdf")
    # the PDF's bytes are nowhere in the lake: no binary columns, no PDF text, lake files small
    marker = pdf_bytes[:64].decode("latin-1")
    for f in sorted(Path(lake.bronze).rglob("*.parquet")):
        df = pl.read_parquet(f)
        assert not any(dt == pl.Binary for dt in df.schema.values())
        for col in [c for c, dt in df.schema.items() if dt == pl.String]:
            assert not df[col].fill_null("").str.contains("%PDF-", literal=True).any()
            assert not df[col].fill_null("").str.contains(marker, literal=True).any()
        assert pdf_bytes[1000:1064] not in f.read_bytes()


def test_real_referenced_missing(real: tuple[SourceReport, Lake]) -> None:
    _, lake = real
    sk = by_name(table(lake, "skills"))
    assert "scripts/with_server.py" in sk["webapp-testing"]["referenced_missing"]
    assert sk["web-artifacts-builder"]["referenced_missing"] == ["scripts/bundle-artifact.sh",
                                                                 "scripts/init-artifact.sh"]
    assert sk["mcp-builder"]["referenced_missing"] == []  # its reference/*.md exist
    assert sk["brainstorming"]["referenced_missing"] == []  # repo-rooted path to an existing file
    for name, row in sk.items():  # never invented: every flagged path is really absent
        folder = Path(row["path"]).parent
        for ref in row["referenced_missing"]:
            assert not (folder / ref).exists(), (name, ref)


# -- hand-made cases -----------------------------------------------------------------------
def test_bom_crlf_no_front_matter_and_invalid_yaml(tmp_path: Path) -> None:
    root = tmp_path / "extra"
    bom = ("\ufeff---\r\nname: bom-skill\r\ndescription: With BOM\r\nwhenToUse: when testing\r\n"
           "allowed-tools: Read, Bash(git add:*)\r\nmetadata:\r\n  version: 1.2\r\n"
           "disable-model-invocation: true\r\nuser-invocable: false\r\nlicense: MIT\r\ncustom: 7\r\n"
           "---\r\n# Body\r\nsee `scripts/run.sh` and [ref](./ref/a.md)\r\n")
    _write(root / "bom" / "SKILL.md", bom.encode("utf-8"))
    _write(root / "bom" / "ref" / "a.md", "ref\n")
    _write(root / "plain" / "SKILL.md", "# Just markdown\n\nNo front matter.\n")
    _write(root / "broken" / "SKILL.md", "---\nname: [unclosed\n---\nbody\n")
    _write(root / "good" / "SKILL.md", skill_md("good"))
    rep, lake, store = run(tmp_path, [root])
    sk = by_name(table(lake, "skills"))
    assert set(sk) == {"bom-skill", "plain", "good"}
    b = sk["bom-skill"]
    assert (b["description"], b["when_to_use"], b["license"]) == ("With BOM", "when testing", "MIT")
    assert b["allowed_tools"] == ["Read", "Bash(git add:*)"]
    assert json.loads(b["metadata_json"]) == {"version": 1.2} and b["version"] == "1.2"
    assert json.loads(b["frontmatter_json"]) == {"custom": 7}
    assert b["disable_model_invocation"] is True and b["user_invocable"] is False
    assert b["body"].startswith("# Body\n") and "\r" not in b["body"]
    assert b["referenced_missing"] == ["scripts/run.sh"] and b["rel_dir"] == "bom"
    p = sk["plain"]
    assert p["description"] is None and p["body"].startswith("# Just markdown")
    assert p["disable_model_invocation"] is None and p["allowed_tools"] == []
    assert rep.units_failed == 1 and len(rep.errors) == 1
    err = rep.errors[0]
    assert err["code"] == "KNOWLEDGE_SOURCE_CORRUPT" and err["unit"].endswith(":broken")
    assert store.units[err["unit"]]["status"] == "error"


def test_roots_ids_and_workspaces(tmp_path: Path) -> None:
    dsh = tmp_path / "dsh"
    ws = tmp_path / "proj"
    _write(dsh / "skills" / "deploy" / "SKILL.md", skill_md("deploy"))
    _write(ws / ".dsh" / "skills" / "deploy" / "SKILL.md", skill_md("deploy"))
    _write(ws / ".agents" / "skills" / "group" / "lint" / "SKILL.md", skill_md("lint"))
    _write(dsh / "storages" / "workspace.json", json.dumps({"workspaces": [{"id": "ws1", "path": str(ws)}]}))
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a / "dup" / "SKILL.md", skill_md("dup"))
    _write(b / "dup" / "SKILL.md", skill_md("dup", "other copy"))
    _, lake, _ = run(tmp_path, [a, b])
    sk = table(lake, "skills")
    ids = dict(zip(sk["skill_id"], sk["root_kind"], strict=True))
    assert ids["skill:dsh_home:deploy"] == "dsh_home"
    assert ids["skill:workspace_dsh:deploy:ws1"] == "workspace_dsh"
    assert ids["skill:workspace_agents:lint:ws1"] == "workspace_agents"
    lint = sk.filter(pl.col("name") == "lint").row(0, named=True)
    assert lint["rel_dir"] == "group/lint" and lint["workspace_id"] == "ws1"
    dups = sk.filter(pl.col("name") == "dup").sort("root_path")
    assert dups["skill_id"][0] == "skill:extra:dup" and dups["skill_id"][1].startswith("skill:extra:dup:")
    # the same inputs give the same ids
    _, lake2, _ = run(tmp_path / "again", [a, b])
    assert set(table(lake2, "skills").filter(pl.col("name") == "dup")["skill_id"]) == set(dups["skill_id"])
    # a corrupt registry degrades the source but keeps the workspace skills already known
    _write(dsh / "storages" / "workspace.json", "{oops")
    rep, lake, _ = run(tmp_path, [a, b])
    assert rep.degraded and rep.errors[0]["code"] == "KNOWLEDGE_SOURCE_CORRUPT"
    kept = set(table(lake, "skills")["skill_id"])
    assert {"skill:workspace_dsh:deploy:ws1", "skill:workspace_agents:lint:ws1"} <= kept
    # a configured dir that does not exist is reported, the rest still indexes
    rep, lake, _ = run(tmp_path, [a, tmp_path / "missing"])
    assert any(e["code"] == "KNOWLEDGE_SOURCE_UNAVAILABLE" for e in rep.errors)
    assert "skill:extra:dup" in set(table(lake, "skills")["skill_id"])


def test_autoclaw_ledger_bundles_tombstones(tmp_path: Path) -> None:
    root = tmp_path / "autoclaw" / "accounts" / "acct1" / "runtime" / "zwork-agent" / "skills"
    alpha = skill_md("alpha").encode()
    _write(root / "alpha" / "SKILL.md", alpha)
    _write(root / "beta" / "SKILL.md", skill_md("beta"))
    _write(root / "gamma" / "SKILL.md", skill_md("gamma"))
    _write(root / "skills-preinstall.json", json.dumps([
        {"skillId": "alpha", "version": "1.4.0", "contentSha256": hashlib.sha256(alpha).hexdigest(),
         "byteLength": len(alpha), "deployedAt": 1761200000000},
        {"skillId": "beta", "version": 2, "contentSha256": "0" * 64, "byteLength": 1, "deployedAt": "2025-01-01"},
    ]))
    _write(root / ".tombstones.json", json.dumps([{"skillId": "beta", "removedAt": "2025-02-01T00:00:00Z"},
                                                  {"skillId": "ghost", "removedAt": 1761300000000}]))
    _write(root / ".zwork-bundles" / "core" / ".zwork-bundle.json",
           json.dumps({"bundleId": "core", "version": "1", "skills": ["alpha", "ghost"]}))
    rep, lake, _ = run(tmp_path)
    assert not rep.errors
    sk = by_name(table(lake, "skills"))
    assert set(sk) == {"alpha", "beta", "gamma", "ghost"}
    a = sk["alpha"]
    assert (a["status"], a["version"], a["ledger_matches"], a["bundles"]) == ("live", "1.4.0", True, ["core"])
    assert a["skill_id"] == "skill:autoclaw:alpha:acct1" and a["account"] == "acct1"
    assert a["deployed_at"] == "2025-10-23T06:13:20Z"
    b = sk["beta"]
    assert (b["status"], b["removed_at"], b["ledger_matches"], b["version"]) == (
        "removed", "2025-02-01T00:00:00Z", False, "2")
    g = sk["ghost"]
    assert (g["status"], g["path"], g["body"], g["bundles"]) == ("removed", None, None, ["core"])
    assert g["removed_at"] == "2025-10-24T10:00:00Z"
    c = sk["gamma"]
    assert (c["status"], c["version"], c["ledger_matches"], c["bundles"]) == ("live", None, None, [])
    # a tombstone that goes away brings the skill back as live; a vanished folder is dropped
    _write(root / ".tombstones.json", "[]")
    (root / "gamma" / "SKILL.md").unlink()
    (root / "gamma").rmdir()
    rep, lake, _ = run(tmp_path)
    sk = by_name(table(lake, "skills"))
    assert set(sk) == {"alpha", "beta"} and sk["beta"]["status"] == "live"
    assert rep.units_removed == 2  # gamma folder, ghost tombstone


def test_incremental_exclusion_and_resources(tmp_path: Path) -> None:
    root = tmp_path / "extra"
    _write(root / "one" / "SKILL.md", skill_md("one", body="Use `tools/a.py`.\n"))
    _write(root / "one" / "tools" / "a.py", "print(1)\n")
    _write(root / "one" / "latin.txt", "caf\xe9".encode("latin-1"))
    _write(tmp_path / "outside.txt", "outside\n")
    os.symlink(tmp_path / "outside.txt", root / "one" / "link_out.txt")
    os.symlink(root / "one" / "tools" / "a.py", root / "one" / "link_in.py")
    _write(root / "two" / "SKILL.md", skill_md("two"))
    rep, lake, _ = run(tmp_path, [root])
    assert rep.units_changed == 2
    res = table(lake, "skill_resources").filter(pl.col("skill_id") == "skill:extra:one")
    assert dict(zip(res["rel_path"], res["is_binary"], strict=True)) == {
        "latin.txt": True, "link_in.py": False, "tools/a.py": False}
    assert by_name(table(lake, "skills"))["one"]["referenced_missing"] == []

    rep, lake, _ = run(tmp_path, [root])
    assert (rep.units_unchanged, rep.units_changed, lake.files_written) == (2, 0, 0)

    _write(root / "one" / "tools" / "b.py", "print(2)\n")  # a new resource changes only that skill
    rep, lake, _ = run(tmp_path, [root])
    assert (rep.units_changed, rep.units_unchanged) == (1, 1)
    assert "tools/b.py" in set(table(lake, "skill_resources")["rel_path"])

    rep, lake, _ = run(tmp_path, [root], paths=[str(root / "two")])
    assert set(table(lake, "skills")["name"]) == {"one"} and rep.units_removed == 1


def test_parse_helpers() -> None:
    assert split_tools("Bash(git add:*) Read,Write") == ["Bash(git add:*)", "Read", "Write"]
    assert split_tools(["Read", "Bash(a b)"]) == ["Read", "Bash(a b)"]
    p = parse_skill_md(b"---\n---\nbody\n")
    assert p.name is None and p.body == "body\n"
    with pytest.raises(ValueError):
        parse_skill_md(b"---\nname: x\nno closing\n")
    with pytest.raises(ValueError):
        parse_skill_md(b"---\n- a list\n---\n")
    with pytest.raises(ValueError):
        parse_skill_md(b"---\nname: \xff\n---\n")
