"""The semantic lane (FR-5.1, opt-in): real model, real generations, real searches; nothing mocked.

Off: nothing of it runs and answers are the lexical ones. On: episode/memory/skill units are
embedded in the build (reused by text md5 across builds), each lane's vector side is fused with
its lexical ranking, and a cross-lingual paraphrase finds what the lexical index misses.
"""

from __future__ import annotations

import glob
import json
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from homes import BuiltHome, build_home, q

from warehouse.api import Warehouse
from warehouse.bench.mutate import append_event, pick_session
from warehouse.core import embed
from warehouse.core.errors import Code
from warehouse.core.settings import Settings
from warehouse.search.messages import MESSAGES

pytestmark = pytest.mark.skipif(not embed.installed(), reason="the [semantic] extra is not installed")

# cross-lingual paraphrases whose target the lexical ranking puts below another episode (checked below)
# the `why` of a vector match in either language of an answer ("vec: 0.52" / "по смыслу: 0.52")
VEC_PREFIXES = tuple(t.split("{")[0] for t in MESSAGES["item.vector"].values())


def _vec(why: str) -> float | None:
    """The similarity a `why` line states, None for another kind of line."""
    prefix = next((p for p in VEC_PREFIXES if why.startswith(p)), None)
    return None if prefix is None else float(why[len(prefix):])


RU_OVER_EN = ("кто снимал резервную копию postgres и проверял, что она восстанавливается?",
              "Back up and restore the shop Postgres database")
EN_OVER_RU = ("who moved the website to a new server", "Перенос сайта iya.ru на новый сервер 91.201.52.14")


def _home(src: Path, home: Path, semantic: bool) -> Warehouse:
    return build_home(src, home, semantic=semantic)


@pytest.fixture(scope="module")
def src(home24: BuiltHome) -> Path:
    return home24.src


@pytest.fixture(scope="module")
def on(home24_on: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24_on.copy(tmp_path_factory.mktemp("on"))


@pytest.fixture(scope="module")
def off(home24: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return home24.copy(tmp_path_factory.mktemp("off"))


def _titles(resp: dict[str, Any], n: int = 3) -> list[str]:
    return [(i.get("session") or {}).get("title") for i in resp["lanes"]["episodes"]["items"][:n]]


def _vectors(home: Path) -> dict[str, bytes]:
    path = sorted(glob.glob(str(home / "generations" / "*.duckdb")))[-1]
    con = duckdb.connect(path, read_only=True)
    try:
        return {md5: np.asarray(v, dtype=np.float32).tobytes()
                for md5, v in con.execute("SELECT DISTINCT text_md5, vec FROM akw_vec").fetchall()}
    finally:
        con.close()


# -- the model -------------------------------------------------------------------------------------
def test_embedding_is_a_function_of_the_text_and_round_trips_through_sql() -> None:
    text = "Восстановление доступа к MySQL: root@localhost через auth_socket"
    a, b = embed.embed(text), embed.embed_each(["other text first", text])[1]
    assert a.shape == (embed.DIMS,) and a.dtype == np.float32
    assert np.array_equal(a, b)  # same text -> the same bits, whatever is embedded around it
    assert abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    con = duckdb.connect()
    back = np.asarray(con.execute(f"SELECT {embed.vector_literal(a)}").fetchone()[0], dtype=np.float32)
    assert np.array_equal(back, a)
    ru, en, other = embed.embed_each(["кто восстановил доступ к базе", "who restored database access", "рецепт борща"])
    assert float(ru @ en) > float(ru @ other) + 0.3  # meaning crosses the language, topics do not


def test_vector_literal_rejects_what_is_not_a_finite_vector() -> None:
    with pytest.raises(ValueError):
        embed.vector_literal(np.zeros(3, dtype=np.float32))
    bad = np.zeros(embed.DIMS, dtype=np.float32)
    bad[7] = np.nan
    with pytest.raises(ValueError):
        embed.vector_literal(bad)


def test_not_installed_error_is_coded_and_says_how_to_install() -> None:
    err = embed.not_installed_error()
    assert err.code == Code.SEMANTIC_UNAVAILABLE.value and "[semantic]" in err.message


# -- settings, index_rev -----------------------------------------------------------------------------
def test_semantic_enters_index_rev_only_when_enabled() -> None:
    off = Settings()
    assert "semantic" not in off.index_affecting()  # off: index_rev is what it was before the lane
    on = off.with_value("semantic.enabled", "true")
    assert on.index_affecting()["semantic"]["model"] == embed.model_key()


def test_config_set_says_semantic_is_local(src: Path, tmp_path: Path) -> None:
    wh = Warehouse.open(src / "dsh", src / "autoclaw", tmp_path / "h")
    doc = wh.config_set(["semantic.enabled=true"])
    assert doc["agent-knowledge"]["semantic"]["enabled"] is True
    assert doc["notes"][0]["code"] == "KNOWLEDGE_SEMANTIC_LOCAL" and "no text leaves" in doc["notes"][0]["message"]


# -- the build -----------------------------------------------------------------------------------------
def test_build_embeds_units_and_reuses_them_by_text(src: Path, home24_on: BuiltHome, tmp_path: Path) -> None:
    """The shared semantic home is the first build (a cold one of `src`); a copy of it over a copy of the
    sources, one session changed, embeds only the unit texts that build did not hold."""
    import shutil

    data = tmp_path / "src"
    shutil.copytree(src, data, symlinks=True)
    home = tmp_path / "home"
    home24_on.copy(home)
    wh = Warehouse.open(data / "dsh", data / "autoclaw", home)
    first = wh.status()["semantic"]
    assert first["state"] == "ready"
    v1 = first["vectors"]
    assert v1["units"] > 50 and v1["embedded"] == v1["distinct_texts"] and not v1["reused_from_previous"]
    before = _vectors(home)
    # one session changes: only unit texts the previous generation did not hold are embedded
    append_event(pick_session(data / "dsh"), "semantic-reuse")
    r = wh.reindex()
    v2 = r["build"]["semantic"]
    after = _vectors(home)
    new_texts = set(after) - set(before)
    assert v2["reused_from_previous"] and v2["embedded"] == len(new_texts) < v2["distinct_texts"]
    assert all(after[m] == before[m] for m in set(after) & set(before))
    # (that a vector is a function of its text alone: test_embedding_is_a_function_of_the_text_…)


def test_off_builds_no_vectors_and_answers_without_a_semantic_field(off: Warehouse) -> None:
    assert off.status()["semantic"]["state"] == "off"
    d = q(off, *RU_OVER_EN[:1])
    assert all("semantic" not in (d["lanes"].get(ln) or {}) for ln in ("episodes", "code", "skills"))
    assert not any(_vec(w) is not None for ln in ("episodes", "code", "skills")
                   for i in (d["lanes"].get(ln) or {}).get("items", []) for w in i["why"])


# -- search ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("query,title", [RU_OVER_EN, EN_OVER_RU])
def test_cross_lingual_query_ranks_the_work_first_by_meaning(on: Warehouse, query: str, title: str) -> None:
    """The other language's work ranks first, and the vector side is part of why (lexical alone may or
    may not find it: the precision rules made the lexical side find this one too)."""
    d = q(on, query, mode="find_knowledge")
    assert _titles(d, 1) == [title]
    item = next(i for i in d["lanes"]["episodes"]["items"] if i["session"]["title"] == title)
    assert any((v := _vec(w)) is not None and v < 1 for w in item["why"])
    assert d["lanes"]["episodes"]["semantic"]["state"] == "answered"


def test_absent_topic_stays_empty_with_semantic_on(on: Warehouse) -> None:
    for text in ("рецепт борща со свёклой", "kafka consumer group rebalancing storm", "kubernetes helm chart upgrade"):
        d = q(on, text)
        assert d["found"] is False and d["actors"] == [], text


def test_lane_states_say_what_the_vector_side_did(on: Warehouse) -> None:
    d = q(on, "restore mysql access", include=["episodes", "code", "skills"])
    lanes = d["lanes"]
    assert lanes["episodes"]["semantic"]["state"] == "answered" and lanes["episodes"]["semantic"]["hits"] > 0
    assert lanes["skills"]["semantic"]["state"] == "answered"
    assert lanes["code"]["semantic"]["state"] == "no_vectors"  # code chunks are not embedded
    assert not any(w["code"] == Code.SEMANTIC_UNAVAILABLE.value for w in d["warnings"])


def test_semantic_on_over_a_generation_built_without_vectors_warns(src: Path, off: Warehouse) -> None:
    home = off.paths.home
    Settings.load(off.paths.config_file).with_value("semantic.enabled", "true").save(off.paths.config_file)
    try:
        wh = Warehouse.open(src / "dsh", src / "autoclaw", home)
        d = q(wh, "restore mysql access")
        assert d["lanes"]["episodes"]["semantic"]["state"] == "no_vectors"
        assert any(w["code"] == Code.SEMANTIC_UNAVAILABLE.value and w["lane"] == "episodes" for w in d["warnings"])
        assert d["found"] is True  # the lexical side still answers
        assert wh.status()["semantic"]["state"] == "not_built"
    finally:
        Settings.load(off.paths.config_file).with_value("semantic.enabled", "false").save(off.paths.config_file)


def test_same_request_same_bytes_with_semantic_on(on: Warehouse) -> None:
    req = {"schema": "knowledge.search/v1", "query": RU_OVER_EN[0], "limit": 10}
    a = json.dumps(on.search(req), sort_keys=True)
    on.engine.close()
    b = json.dumps(on.search(req), sort_keys=True)
    assert a == b


def test_filters_apply_to_the_vector_side(on: Warehouse) -> None:
    d = q(on, RU_OVER_EN[0], mode="find_knowledge", filters={"workspaces": ["no-such-workspace"]})
    assert d["lanes"]["episodes"]["items"] == []


def test_a_vector_only_episode_is_an_episode_item(on: Warehouse) -> None:
    """An episode found by meaning alone (no matching term) is still an episode item with its session,
    never a skill-shaped item in the episodes lane (a merge once routed it to the skill branch)."""
    for query in ("a saved agent that looks after our MySQL and Postgres servers",
                  "an agent that reviews database migrations", "агент, который следит за базами данных"):
        d = q(on, query)
        items = d["lanes"]["episodes"]["items"]
        assert all("session_id" in i and "name" not in i for i in items)


def test_an_actor_profile_is_found_by_meaning(on: Warehouse, off: Warehouse) -> None:
    """Actor profiles (name, description, instructions) are embedded units too: an English description
    of the kind of agent finds the subagent whose profile says it in Russian ("Проверяет результат
    админских изменений и пишет отчёт"), which the lexical side alone does not rank at all; its
    evidence carries the profile's similarity."""
    query = "a subagent that re-checks what an administrator changed and writes up its findings"
    lexical = q(off, query)
    assert not any(a["name"].startswith("verify-admin") for a in lexical["actors"])
    d = q(on, query)
    assert d["actors"] and d["actors"][0]["name"].startswith("verify-admin"), [a["name"] for a in d["actors"]]
    evidence = {e["id"] for e in d["actors"][0]["evidence"]}
    items = {i["id"]: i for i in d["lanes"]["episodes"]["items"]}
    assert evidence <= set(items)  # KC-7
    assert any((_vec(w) or 0) >= 0.4 for e in evidence for w in items[e]["why"])


def test_actor_profiles_are_embedded_but_never_items(on: Warehouse) -> None:
    profiles = on.sql("SELECT count(*) FROM akw_vec WHERE lane_no = 3")["rows"][0][0]
    docs = on.sql("SELECT count(*) FROM ak_document WHERE kind = 'actor'")["rows"][0][0]
    assert profiles == docs > 0
    d = q(on, "an agent that reviews database migrations")
    assert all(not i["id"].startswith("actor") for lane in d["lanes"].values() for i in (lane or {}).get("items", []))


def test_a_detail_deep_in_a_session_is_found_by_its_passage(on: Warehouse) -> None:
    """Issue 24: an event's passages are embedded (not only an episode's head), an episode scores as its
    best passage, and an item found by meaning alone shows that passage as its snippet."""
    parts = on.sql("SELECT count(*) FILTER (WHERE part > 0), count(*) FILTER (WHERE pos > 0) "
                   "FROM akw_vec WHERE lane_no = 0")["rows"][0]
    session, text, pos = on.sql(
        "SELECT d.session_id, d.text, v.pos FROM akw_vec v JOIN ak_document d USING (doc_id) "
        "WHERE v.lane_no = 0 AND v.pos > 0 AND NOT contains(d.text, 'REDACTED') ORDER BY v.doc_id, v.pos LIMIT 1",
        limit=1)["rows"][0]
    assert parts[0] > 0 and parts[1] > 0, "passages beyond the head are embedded"
    from warehouse.core.passages import clean, passages

    passage = dict(passages(text))[pos]
    assert pos > 0 and clean(text)[pos:].startswith(passage)
    resp = q(on, passage)
    sims = {i["session_id"]: _vec(w) for i in resp["lanes"]["episodes"]["items"] for w in i["why"]
            if _vec(w) is not None}
    assert sims.get(session, 0) >= 0.9, "the passage's own text finds its session by meaning, as its best unit"


def test_a_skill_is_found_by_a_passage_of_its_body(on: Warehouse) -> None:
    """Issue 24: a skill's head unit holds its name and description; how the practice goes is deeper in
    SKILL.md. Its body's passages are embedded in the skills lane, and a question about one finds it."""
    from warehouse.core.passages import passages

    name, text, pos = on.sql(
        "SELECT split_part(d.doc_key, ':', 3), d.text, v.pos FROM akw_vec v JOIN ak_document d USING (doc_id) "
        "WHERE v.lane_no = 2 AND v.part > 0 AND v.pos > 300 ORDER BY v.doc_id, v.pos LIMIT 1", limit=1)["rows"][0]
    passage = dict(passages(text))[pos]
    resp = q(on, passage, include=["skills"])
    items = resp["lanes"]["skills"]["items"]
    assert items and items[0]["name"] == name
    assert any((_vec(w) or 0) >= 0.9 for w in items[0]["why"])
