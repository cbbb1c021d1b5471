"""Issue 11: skills that win on evidence, a warehouse of skills only, and the workspace filter by name.

Real homes only: generated sources (`akw_fixtures`) indexed by the real build, and a home indexed
from nothing but the real SKILL.md folders under shared/realdata/skills (sessions and AutoClaw
folders empty). Expectations come from the generator's manifest, never from a first run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from homes import BuiltHome, q

from warehouse.api import Warehouse
from warehouse.core.paths import Paths
from warehouse.core.settings import Settings
from warehouse.evaluation.homes import realdata_dir
from warehouse.search.workspaces import WorkspaceIndex

SEED_SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_6a60be907bed1bea.txt"
LANES = ("episodes", "code", "skills")


@pytest.fixture(scope="module")
def gen(home24: BuiltHome) -> tuple[Path, dict[str, Any]]:
    return home24.src, home24.manifest


@pytest.fixture(scope="module")
def wh(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("home"))


def _ids(d: dict[str, Any]) -> dict[str, list[str]]:
    return {ln: [it["id"] for it in d["lanes"][ln]["items"]] for ln in LANES}


def _validate(d: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if SEED_SCHEMA.exists():
        jsonschema.Draft202012Validator(json.loads(SEED_SCHEMA.read_text(encoding="utf-8"))).validate(d)


def _workspace(manifest: dict[str, Any], name: str) -> dict[str, Any]:
    return next(w for w in manifest["workspaces"] if w["name"] == name)


# -- workspace filter: id, path, folder name, title ----------------------------------------------
QUERY = "alembic migration of the orders table with a backfill"


def test_workspace_filter_by_id_path_name_or_title_answers_the_same(wh: Warehouse,
                                                                    gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    ws = _workspace(manifest, "shop-api")
    others = [w for w in manifest["workspaces"] if w["id"] != ws["id"]]
    by_id = q(wh, QUERY, filters={"workspaces": [ws["id"]]}, limit=30)
    assert by_id["found"] and by_id["lanes"]["episodes"]["items"] and by_id["lanes"]["code"]["items"]
    for form in (ws["path"], ws["path"] + "/", ws["name"], ws["name"].upper(), ws["title"]):
        d = q(wh, QUERY, filters={"workspaces": [form]}, limit=30)
        assert _ids(d) == _ids(by_id), form
        assert not [w for w in d["warnings"] if w["code"] == "KNOWLEDGE_UNKNOWN_WORKSPACE"], form
    for it in by_id["lanes"]["episodes"]["items"]:
        assert it["session"]["workspace"] in (ws["id"], ws["path"])
    for it in by_id["lanes"]["code"]["items"]:
        assert it["workspace"] == ws["id"]
    for it in by_id["lanes"]["skills"]["items"]:  # this workspace's skills or global ones, never another's
        assert not any(it["path"].startswith(w["path"] + "/") for w in others), it["path"]
    unfiltered = q(wh, QUERY, limit=30)
    assert _ids(unfiltered) != _ids(by_id), "the filter changes the answer (other workspaces have matches)"


def test_skills_lane_honours_the_workspace_filter(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    """nginx-proxy lives in infra-ops/.agents/skills: filtered to shop-api it is gone; a DSH home skill stays."""
    _, manifest = gen
    spec = next(s for s in manifest["skills"] if s["name"] == "nginx-proxy" and s["status"] == "live")
    assert spec["root_kind"] == "workspace_agents" and spec["workspace_id"] == _workspace(manifest, "infra-ops")["id"]
    text = "nginx reverse proxy with upstream keepalive and websocket"
    names = [it["name"] for it in q(wh, text, mode="find_skill")["lanes"]["skills"]["items"]]
    assert "nginx-proxy" in names
    for ws in ("shop-api", "infra-ops"):
        filtered = [it["name"] for it in q(wh, text, mode="find_skill",
                                           filters={"workspaces": [ws]})["lanes"]["skills"]["items"]]
        assert ("nginx-proxy" in filtered) is (ws == "infra-ops"), ws
    home_skill = next(s for s in manifest["skills"] if s["name"] == "cert-rotation" and s["root_kind"] == "dsh_home")
    assert home_skill["status"] == "live"
    d = q(wh, "renew the Let's Encrypt certificate with certbot", mode="find_skill",
          filters={"workspaces": ["shop-api"]})
    assert "cert-rotation" in [it["name"] for it in d["lanes"]["skills"]["items"]], "global skills stay visible"


def test_unknown_workspace_is_a_warning_and_matches_nothing(wh: Warehouse) -> None:
    d = q(wh, QUERY, filters={"workspaces": ["no-such-workspace"]})
    assert d["found"] is False and d["actors"] == []
    assert all(not d["lanes"][ln]["items"] for ln in LANES), "not even global skills: no workspace was named"
    unknown = [w for w in d["warnings"] if w["code"] == "KNOWLEDGE_UNKNOWN_WORKSPACE"]
    assert len(unknown) == 1 and "'no-such-workspace'" in unknown[0]["message"]
    assert "shop-api" in unknown[0]["message"], "the warning lists the workspaces it knows"
    _validate(d)


def test_known_and_unknown_workspaces_together(wh: Warehouse, gen: tuple[Path, dict[str, Any]]) -> None:
    _, manifest = gen
    only = q(wh, QUERY, filters={"workspaces": ["shop-api"]}, limit=30)
    d = q(wh, QUERY, filters={"workspaces": ["shop-api", "shop-apii"]}, limit=30)
    assert d["found"] is True and _ids(d) == _ids(only)
    unknown = [w["message"] for w in d["warnings"] if w["code"] == "KNOWLEDGE_UNKNOWN_WORKSPACE"]
    assert len(unknown) == 1 and "'shop-apii'" in unknown[0]
    pair = [_workspace(manifest, n) for n in ("shop-api", "infra-ops")]
    two = q(wh, "nginx alembic migration certificate", filters={"workspaces": ["shop-api", pair[1]["path"]]},
            limit=50)
    seen = {it["session"]["workspace"] for it in two["lanes"]["episodes"]["items"]}
    assert seen and seen <= {v for w in pair for v in (w["id"], w["path"])}


def test_workspace_index_resolution_rules() -> None:
    """The resolver over a generation's workspace rows: exact id/path first, then folder name or title."""
    rows = [(1, "api-1", "/w/api", "/w/api", "Shop API"), (2, "api-1", None, "/w/api", "Shop API"),
            (3, "bot-2", "/x/bot", "/x/bot", None), (4, None, "/other/api", "/other/api", None),
            (None, "empty-3", "/w/empty", "/w/empty", "Nothing indexed yet")]
    idx = WorkspaceIndex(rows)
    assert idx.resolve(["api-1"]) == ([1, 2], [], True)  # an id: all its pairs, its skills (no path) too
    assert idx.resolve(["/w/api/"]) == ([1, 2], [], True)  # a path, normalised
    assert idx.resolve(["shop api"]) == ([1, 2], [], True)  # a title, case and spaces folded
    assert idx.resolve(["api"]) == ([1, 2, 4], [], True)  # a folder name shared by two workspaces names both
    assert idx.resolve(["empty-3", "Nothing indexed yet"]) == ([], [], True)  # known, nothing indexed
    assert idx.resolve(["bot-2", "nope", ""]) == ([3], ["nope", ""], True)
    assert idx.resolve(["nope"]) == ([], ["nope"], False)
    assert idx.names() == ["api", "bot", "empty"]


# -- skills that win on evidence -------------------------------------------------------------------
def test_skill_used_by_matching_episodes_ranks_above_word_overlap(wh: Warehouse,
                                                                 gen: tuple[Path, dict[str, Any]]) -> None:
    """"nginx config": the nginx_proxy tasks used nginx-proxy (manifest); ssh-hardening only shares words."""
    _, manifest = gen
    used = {s for t in manifest["tasks"] if t["template"] == "nginx_proxy" for s in t["skills"]}
    assert used == {"nginx-proxy"}
    words_only = q(wh, "nginx config", mode="find_skill", include=["skills"])["lanes"]["skills"]["items"]
    with_evidence = q(wh, "nginx config", mode="find_skill", include=["episodes", "skills"])["lanes"]["skills"]["items"]
    rank = {name: [it["name"] for it in items].index("nginx-proxy")
            for name, items in (("words", words_only), ("evidence", with_evidence))}
    assert rank["evidence"] == 0 and rank["words"] > 0, rank
    top = with_evidence[0]
    assert top["why"][0].startswith("used in ") and top["why"][0].endswith(" matching episodes")
    assert int(top["why"][0].split()[2]) >= 1
    assert all(not w.startswith("used in") for it in words_only for w in it["why"]), "no episodes, no evidence"


# -- a warehouse of skills only ----------------------------------------------------------------
def _skills_home(root: Path, registry: bool) -> Warehouse:
    """A home over an empty AutoClaw root and a DSH home without sessions; the real skill collections
    are its extra skill dirs. With `registry`, the DSH home lists two workspaces (still no sessions):
    `notes` with nothing of its own, `toolbox` with one skill (its folder is also code)."""
    real = realdata_dir()
    if real is None:
        pytest.skip("shared/realdata/skills not found")
    (root / "autoclaw").mkdir()
    (root / "dsh" / "storages").mkdir(parents=True)
    if registry:
        (root / "ws" / "notes").mkdir(parents=True)
        skill = root / "ws" / "toolbox" / ".agents" / "skills" / "fmt-check"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text("---\nname: fmt-check\ndescription: Check that Python code is formatted "
                                        "with ruff format before a commit.\n---\n\n# fmt-check\n\n"
                                        "Run `ruff format --check`.\n", encoding="utf-8")
        (root / "dsh" / "storages" / "workspace.json").write_text(json.dumps({"workspaces": [
            {"id": "notes-1", "path": str(root / "ws" / "notes"), "title": "Meeting notes"},
            {"id": "toolbox-2", "path": str(root / "ws" / "toolbox"), "title": "Toolbox"}]}), encoding="utf-8")
    paths = Paths.resolve(root / "dsh", root / "autoclaw", root / "home")
    Settings.load(paths.config_file).with_value("sources.extra_skill_dirs", json.dumps([str(real)])).save(
        paths.config_file)
    w = Warehouse(paths)
    assert w.reindex()["outcome"] == "published"
    return w


def test_a_skill_is_nominated_by_its_use_in_the_matching_episodes(wh: Warehouse) -> None:
    """Issue 24: a word of the work that no skill's text holds still finds the skill the work used: the
    episodes that match it nominate their skills, with the use (not a word match) as the evidence."""
    import re

    skill_words = " ".join(t.lower() for (t,) in wh.sql(
        "SELECT coalesce(text, '') || ' ' || coalesce(title, '') FROM ak_document WHERE lane = 'skills'",
        limit=100000)["rows"])
    uses = wh.sql("SELECT DISTINCT u.skill_name, d.text FROM ak_skill_use u JOIN ak_document d "
                  "ON d.episode_id = u.episode_id AND d.kind = 'episode' ORDER BY 1, 2", limit=1000)["rows"]
    nominated = []
    for skill, text in uses:
        for word in [w for w in dict.fromkeys(re.findall(r"[a-z]{7,}", (text or "").lower()))
                     if w not in skill_words][:4]:
            items = [i for i in q(wh, word)["lanes"]["skills"]["items"] if i["name"] == skill
                     and not any(w.startswith("lex:") for w in i["why"])]  # its own words did not match (stems)
            if items:
                assert items[0]["why"][0].startswith("used in"), items[0]["why"]
                nominated.append((skill, word))
                break
    assert len({s for s, _ in nominated}) >= 3, nominated


@pytest.fixture(scope="module")
def skills_only(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return _skills_home(tmp_path_factory.mktemp("skills-only"), registry=False)


@pytest.fixture(scope="module")
def skills_registry(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return _skills_home(tmp_path_factory.mktemp("skills-registry"), registry=True)


@pytest.mark.parametrize(("mode", "text", "skill"), [
    ("find_skill", "write a failing test first and only then the code", "test-driven-development"),
    ("auto", "which skill helps me build an MCP server", "mcp-builder"),
])
def test_skills_only_warehouse_answers_from_the_skills_lane(skills_only: Warehouse, mode: str, text: str,
                                                            skill: str) -> None:
    d = q(skills_only, text, mode=mode)
    assert d["found"] is True and d["errors"] == []
    assert skill in [it["name"] for it in d["lanes"]["skills"]["items"]][:3]
    assert d["lanes"]["skills"]["degraded"] is False
    for lane in ("episodes", "code"):  # honest about having no source
        assert d["lanes"][lane]["degraded"] is True and d["lanes"][lane]["items"] == []
        assert any(w["lane"] == lane and w["code"] == "KNOWLEDGE_INDEX_NOT_READY" for w in d["warnings"])
    assert d["actors"] == []
    _validate(d)


def test_skills_only_warehouse_without_the_skills_lane_has_no_source(skills_only: Warehouse) -> None:
    d = q(skills_only, "write a failing test first", include=["episodes", "code"])
    assert d["found"] is False and [e["code"] for e in d["errors"]] == ["KNOWLEDGE_NO_SOURCE"]
    _validate(d)


def test_registry_workspaces_without_sessions_filter_the_skills_lane(skills_registry: Warehouse) -> None:
    """Folder names and titles of registry workspaces: the workspace's own skill plus the global (real) ones."""
    d = q(skills_registry, "check python formatting with ruff before a commit", mode="find_skill",
          filters={"workspaces": ["toolbox"]})
    assert d["found"] is True and d["lanes"]["skills"]["items"][0]["name"] == "fmt-check"
    assert not [w for w in d["warnings"] if w["code"] == "KNOWLEDGE_UNKNOWN_WORKSPACE"]
    other = q(skills_registry, "check python formatting with ruff before a commit", mode="find_skill",
              filters={"workspaces": ["notes"]})  # known (registry), nothing of its own indexed
    assert not [w for w in other["warnings"] if w["code"] == "KNOWLEDGE_UNKNOWN_WORKSPACE"]
    assert "fmt-check" not in [it["name"] for it in other["lanes"]["skills"]["items"]]
    tdd = q(skills_registry, "write a failing test first and only then the code", mode="find_skill",
            filters={"workspaces": ["Meeting notes"]})
    assert "test-driven-development" in [it["name"] for it in tdd["lanes"]["skills"]["items"]], "global skills stay"


def test_status_says_when_russian_questions_cannot_reach_the_work(skills_only: Warehouse, wh: Warehouse) -> None:
    """Issue 24: with search by meaning off, an index of (almost) only English text says that a Russian question
    will find little, and the settings page shows it; an index holding Russian text says nothing."""
    from warehouse import ui

    english = skills_only.status()["semantic"]
    assert english["state"] == "off" and english["index_cyrillic_share"] < 0.02
    assert "semantic.enabled" in english["hint"] and "semantic.enabled" in ui.language_hint({"semantic": english}, "ru")
    mixed = wh.status()["semantic"]
    assert mixed["index_cyrillic_share"] >= 0.02 and mixed["hint"] is None
    assert ui.language_hint({"semantic": mixed}, "en") == ""
