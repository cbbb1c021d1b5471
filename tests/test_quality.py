"""The data-quality suite (`akw quality`): a clean generation passes, and each kind of damage done on purpose
to a copy of a generation's marts is caught by the expectation that names it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cli_run
import duckdb
import pytest
from homes import BuiltHome

from warehouse.api import Warehouse
from warehouse.home import generation
from warehouse.indexing.transform import discover
from warehouse.quality.checks import KINDS, MARTS, checks
from warehouse.quality.run import run_quality


def one(table: str, where: str = "true") -> str:
    """A WHERE clause picking exactly one row of `table`."""
    return f"rowid = (SELECT min(rowid) FROM {table} WHERE {where})"


# kind of damage → (SQL applied to the copy, the check that must fail)
CORRUPTIONS: dict[str, tuple[list[str], str]] = {
    "duplicate_id": (["INSERT INTO ak_episode SELECT * FROM ak_episode LIMIT 1"], "unique_ids:episodes.episode_id"),
    "null_id": (["UPDATE ak_event SET event_id = NULL WHERE " + one("ak_event")],
                "unique_ids:events.event_id:not_null"),
    "evidence_out_of_session": (
        ["UPDATE ak_episode SET seq_last = seq_last + 1000, evidence_ref = session_id || '#seq=' || seq_first "
         "|| '-' || (seq_last + 1000) WHERE " + one("ak_episode", "source = 'harness'")],
        "evidence:episodes.evidence_resolves"),
    "evidence_wrong_ref": (
        ["UPDATE ak_episode SET evidence_ref = 'autoclaw:0/run_missing' WHERE "
         + one("ak_episode", "source = 'autoclaw'")],
        "evidence:episodes.evidence_resolves"),
    "episode_of_a_missing_actor": (
        ["UPDATE ak_episode SET actor_id = 'actor:ghost' WHERE " + one("ak_episode", "actor_id IS NOT NULL")],
        "actor_refs:episodes.actor_resolves"),
    "dangling_relation": (
        ["UPDATE ak_relation SET dst_id = 'episode:ghost' WHERE " + one("ak_relation", "rel = 'did'")],
        "relations:relations.dst_resolves"),
    "code_chunk_without_line": (
        ["UPDATE ak_document SET start_line = 0 WHERE " + one("ak_document", "lane = 'code'")],
        "lanes:documents.lane_shape_ok"),
    "episode_doc_with_path": (
        ["UPDATE ak_document SET path = 'x.py' WHERE " + one("ak_document", "lane = 'episodes'")],
        "lanes:documents.lane_shape_ok"),
    "unknown_outcome": (["UPDATE ak_episode SET outcome = 'great' WHERE " + one("ak_episode")],
                        "enums:episodes.outcome"),
    "unknown_kind": (["UPDATE ak_document SET kind = 'note' WHERE " + one("ak_document")], "enums:documents.kind"),
    "secret_in_text": (
        ["UPDATE ak_document SET text = text || ' db_password=' || 'Hunter' || '2-correct-horse' WHERE "
         + one("ak_document", "lane = 'episodes'")],
        "secrets:text_cells.clean"),
    "lost_event": (["DELETE FROM ak_event WHERE " + one("ak_event", "source = 'harness'")],
                   "reconcile:reconcile.expected=actual"),
}
# the lake is scanned too: a secret in any Parquet text column of any table is caught
LAKE_SECRET = "secrets:lake_cells.clean"

KIND_OF = {"duplicate_id": "unique_ids", "null_id": "unique_ids", "evidence_out_of_session": "evidence",
           "evidence_wrong_ref": "evidence", "episode_of_a_missing_actor": "actor_refs",
           "dangling_relation": "relations", "code_chunk_without_line": "lanes", "episode_doc_with_path": "lanes",
           "unknown_outcome": "enums", "unknown_kind": "enums", "secret_in_text": "secrets",
           "lost_event": "reconcile"}


@pytest.fixture(scope="module")
def wh(small: BuiltHome, tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    return small.copy(tmp_path_factory.mktemp("quality"))


def _corrupt_copy(wh: Warehouse, folder: Path, statements: list[str]) -> Path:
    gen = generation.current(wh.paths.generations)
    assert gen is not None
    copy = folder / gen.path.name
    shutil.copy(gen.path, copy)
    con = duckdb.connect(str(copy))
    for sql in statements:
        con.execute(sql)
    con.close()
    return copy


def test_every_kind_of_damage_has_a_corruption_here() -> None:
    assert set(KIND_OF.values()) == set(KINDS) and set(KIND_OF) == set(CORRUPTIONS)


def test_the_checks_are_the_models_declared_constraints() -> None:
    """Each unique key and accepted-values column the marts declare is checked, with the header's values:
    a value added to a header reaches the suite without a second edit."""
    by_name = {c.name: c for c in checks()}
    assert len(by_name) == len(checks()), "two checks share a name"
    models = discover()
    for frame, mart in MARTS.items():
        for con in models[mart].constraints:
            if con.kind == "accepted_values":
                c = by_name[f"enums:{frame}.{con.columns[0]}"]
                assert c.kwargs["value_set"] == list(con.values), c
            elif con.kind == "unique":
                assert f"unique_ids:{frame}.{con.columns[0] if len(con.columns) == 1 else 'key'}" in by_name
    assert {"enums:episodes.outcome", "enums:documents.kind", "unique_ids:relations.key",
            "unique_ids:events.event_id:not_null"} <= set(by_name)


def test_a_generated_home_passes_and_the_result_is_written(wh: Warehouse, tmp_path: Path) -> None:
    doc = wh.quality(tmp_path)
    assert doc["success"], doc["failed"]
    assert doc["statistics"]["evaluated"] >= 30 and doc["rows"]["episodes"] > 0 and doc["rows"]["text_cells"] > 1000
    written = json.loads((tmp_path / f"quality-{doc['index_rev']}.json").read_text(encoding="utf-8"))
    assert written["schema"] == "akw.quality/v1" and written["success"] is True
    assert {r["kind"] for r in written["results"]} == set(KINDS)


@pytest.mark.parametrize("damage", sorted(CORRUPTIONS))
def test_each_kind_of_corruption_is_caught(damage: str, wh: Warehouse, tmp_path: Path) -> None:
    statements, check = CORRUPTIONS[damage]
    doc = run_quality(_corrupt_copy(wh, tmp_path, statements), out_dir=None)
    assert not doc["success"]
    assert check in doc["failed"], doc["failed"]
    failed = next(r for r in doc["results"] if r["check"] == check)
    assert failed["kind"] == KIND_OF[damage] and failed["unexpected_count"] >= 1
    if damage == "secret_in_text":  # the result names where, never what
        assert "Hunter" not in json.dumps(doc) and failed["examples"][0].startswith("ak_document.text#")


def test_the_cli_exits_non_zero_on_a_damaged_home(wh: Warehouse, tmp_path: Path) -> None:
    home = tmp_path / "akw"
    shutil.copytree(wh.paths.home, home)
    gen = generation.current(home / "generations")
    assert gen is not None
    statements, check = CORRUPTIONS["dangling_relation"]
    con = duckdb.connect(str(gen.path))
    for sql in statements:
        con.execute(sql)
    con.close()
    env = {"AKW_HOME": str(home), "DSH_HOME": str(wh.paths.dsh_home), "AUTOCLAW_ROOT": str(wh.paths.autoclaw_root)}
    r = cli_run.run("quality", "--out", str(tmp_path / "reports"), "--json", env=env)  # the app in-process
    assert r.code == 1, r.stderr
    doc = r.doc()
    assert doc["success"] is False and check in doc["failed"]
    assert (tmp_path / "reports" / f"quality-{gen.index_rev}.json").is_file()


def test_a_home_without_an_index_is_not_ready(tmp_path: Path) -> None:
    env = {"AKW_HOME": str(tmp_path / "akw"), "DSH_HOME": str(tmp_path / "dsh"), "AUTOCLAW_ROOT": str(tmp_path / "ac")}
    r = cli_run.run("quality", "--out", str(tmp_path / "reports"), "--json", env=env)
    assert r.code == 2 and r.doc()["errors"][0]["code"] == "KNOWLEDGE_NOT_READY"


def test_a_secret_in_the_lake_is_caught(wh: Warehouse, tmp_path: Path) -> None:
    home = tmp_path / "akw"
    shutil.copytree(wh.paths.home, home)
    planted = home / "lake" / "bronze" / "dsh" / "events" / "zz-planted.parquet"
    duckdb.sql(f"COPY (SELECT 'session-x' AS session_id, 'export DB_PASSWORD=' || 'Hunter' || '2-correct-horse' "
               f"AS text) TO '{planted.as_posix()}' (FORMAT parquet)")
    copy = Warehouse.open(wh.paths.dsh_home, wh.paths.autoclaw_root, home)
    doc = copy.quality(out_dir=None)
    assert doc["failed"] == [LAKE_SECRET]
    failed = next(r for r in doc["results"] if r["check"] == LAKE_SECRET)
    assert failed["examples"][0].startswith("dsh.events.text#") and "Hunter" not in json.dumps(doc)
    assert wh.quality(out_dir=None)["success"]  # the original lake is clean
