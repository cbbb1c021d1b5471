"""Constraints declared in the model headers (`-- unique:`, `-- not_null:`, `-- accepted_values:`):
the parser, the build's column check, a built generation that passes them all, and damaged
copies of a generation where each kind of violation is caught and named.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import akw_fixtures
import duckdb
import pytest

from warehouse.api import Warehouse
from warehouse.home import generation
from warehouse.indexing import marts_doc, transform
from warehouse.indexing.transform import Constraint, Model

SESSIONS, SEED = 24, 3


def model(source: str, name: str = "m") -> Model:
    return Model(name, Path(f"{name}.sql"), source, "marts")


# -- the header parser -------------------------------------------------------------------------
def test_each_kind_is_parsed_in_file_order() -> None:
    m = model("-- A table.\n"
              "-- unique: id\n"
              "-- unique: lane, doc_key\n"
              "-- not_null: id, lane\n"
              "-- accepted_values: lane: code, skills, episodes\n"
              "--accepted_values:flag:true,false\n"
              "SELECT 1 AS id\n")
    assert m.constraints == [
        Constraint("m", "unique", ("id",)),
        Constraint("m", "unique", ("lane", "doc_key")),
        Constraint("m", "not_null", ("id",)),
        Constraint("m", "not_null", ("lane",)),
        Constraint("m", "accepted_values", ("lane",), ("code", "skills", "episodes")),
        Constraint("m", "accepted_values", ("flag",), ("true", "false")),
    ]
    assert [c.check for c in m.constraints[:3]] == ["m.unique", "m.unique", "m.not_null"]
    assert m.constraints[1].describe() == "unique(lane, doc_key)"
    assert m.constraints[4].describe() == "accepted_values(lane: code, skills, episodes)"


def test_constraint_lines_are_not_documentation() -> None:
    m = model("-- Episodes of work.\n-- unique: id\n-- not_null: id\n-- accepted_values: k: a, b\n"
              "-- col: id: the id\n-- More text.\nSELECT 1 AS id, 'a' AS k\n")
    assert m.doc == "Episodes of work. More text."
    assert m.column_docs == {"id": "the id"}


def test_a_model_without_headers_has_no_constraints() -> None:
    assert model("-- Just a doc.\nSELECT 1 AS id\n").constraints == []


@pytest.mark.parametrize("line, message", [
    ("-- unique:", "bad constraint"),
    ("-- unique: a b", "bad constraint"),
    ("-- not_null: a,", "bad constraint"),
    ("-- unique: a, a", "names a column twice"),
    ("-- accepted_values: kind", "expected `-- accepted_values: column: value"),
    ("-- accepted_values: kind:", "expected `-- accepted_values: column: value"),
    ("-- accepted_values: kind: a, , b", "expected `-- accepted_values: column: value"),
    ("-- accepted_values: kind: a, a", "expected `-- accepted_values: column: value"),
    ("-- accepted_values: a b: x", "bad constraint"),
])
def test_malformed_headers_are_errors_naming_the_model(line: str, message: str) -> None:
    with pytest.raises(ValueError, match="model bad_model") as e:
        _ = model(f"{line}\nSELECT 1 AS a\n", name="bad_model").constraints
    assert message in str(e.value)


def test_a_constraint_declared_twice_is_an_error() -> None:
    with pytest.raises(ValueError, match=r"model m: constraint not_null\(a\) is declared twice"):
        _ = model("-- not_null: a\n-- not_null: b, a\nSELECT 1 AS a, 2 AS b\n").constraints


def _sql_dir(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "marts").mkdir(parents=True)
    (tmp_path / "macros").mkdir()
    for name, text in files.items():
        (tmp_path / "marts" / f"{name}.sql").write_text(text)
    return tmp_path


@pytest.mark.parametrize("header, bad", [
    ("-- unique: nope", "unique(nope)"),
    ("-- unique: a, nope", "unique(a, nope)"),
    ("-- not_null: a, nope", "not_null(nope)"),
    ("-- accepted_values: nope: x, y", "accepted_values(nope: x, y)"),
])
def test_unknown_column_fails_the_build_naming_model_and_constraint(tmp_path, header: str, bad: str) -> None:
    d = _sql_dir(tmp_path, {"t_ok": "-- unique: a\nSELECT 1 AS a\n", "t_bad": f"{header}\nSELECT 1 AS a\n"})
    with pytest.raises(ValueError) as e:
        transform.run(duckdb.connect(), tmp_path, sql_dir=d)
    assert str(e.value) == f"model t_bad: constraint {bad} names unknown column(s) ['nope']"


def test_malformed_header_fails_the_build_before_any_sql(tmp_path) -> None:
    d = _sql_dir(tmp_path, {"t": "-- accepted_values: a\nSELECT * FROM no_such_table\n"})
    with pytest.raises(ValueError, match="model t: bad constraint"):
        transform.run(duckdb.connect(), tmp_path, sql_dir=d)


def test_check_constraints_on_a_small_database(tmp_path) -> None:
    """Every kind against hand-made rows: counts, examples (smallest first, at most 3), NULL rules."""
    d = _sql_dir(tmp_path, {"t": "-- unique: id\n-- unique: a, b\n-- not_null: b\n-- accepted_values: k: x, y\n"
                                 "SELECT * FROM (VALUES (1, 'p', NULL, 'x'), (1, 'p', NULL, 'z'), (2, NULL, 'q', 'w'),"
                                 " (3, NULL, 'q', NULL), (4, NULL, NULL, 'z'), (NULL, NULL, NULL, 'y'),"
                                 " (5, 'r', 's', 'v'), (6, 't', 'u', 'u'), (7, 'v', 'w', 't'))"
                                 " AS v(id, a, b, k)\n"})
    con = duckdb.connect()
    transform.run(con, tmp_path, sql_dir=d)
    assert transform.check_constraints(con, sql_dir=d) == [
        # id 1 twice (the NULL id is no key)
        {"check": "t.unique", "columns": ["id"], "violations": 1, "examples": ["1"]},
        # (p, NULL) twice, (NULL, q) twice; (NULL, NULL) rows are skipped
        {"check": "t.unique", "columns": ["a", "b"], "violations": 2, "examples": ["(NULL, q)", "(p, NULL)"]},
        # shown by the first unique key without b: id (the row with a NULL id shows nothing)
        {"check": "t.not_null", "columns": ["b"], "violations": 4, "examples": ["1", "1", "4"]},
        # NULL passes; rows counted, distinct values shown
        {"check": "t.accepted_values", "columns": ["k"], "accepted": ["x", "y"], "violations": 6,
         "examples": ["t", "u", "v"]},
    ]


def test_a_large_build_checks_each_constraint_alone_with_the_same_result(tmp_path, monkeypatch) -> None:
    """All checks in one query only while the largest table is small: on a team build from a 1M-event
    snapshot that query deadlocked DuckDB for good with one thread (issue 27). Both ways give the same failures."""
    d = _sql_dir(tmp_path, {"t": "-- unique: id\n-- accepted_values: k: x, y\n"
                                 "SELECT * FROM (VALUES (1, 'x'), (1, 'z'), (2, 'y')) AS v(id, k)\n",
                            "u": "-- not_null: a\nSELECT * FROM (VALUES (1), (NULL)) AS v(a)\n"})
    con = duckdb.connect()
    transform.run(con, tmp_path, sql_dir=d)

    class Recorded:
        """The connection, with the statements check_constraints sends it."""

        def __init__(self) -> None:
            self.sql: list[str] = []

        def execute(self, sql: str):
            self.sql.append(sql)
            return con.execute(sql)

    small = Recorded()
    together = transform.check_constraints(small, sql_dir=d)
    assert together and sum("UNION ALL" in q for q in small.sql) == 1
    monkeypatch.setattr(transform, "ONE_QUERY_MAX_ROWS", 3)  # table t's 3 rows now count as large
    large = Recorded()
    assert transform.check_constraints(large, sql_dir=d) == together
    assert not any("UNION ALL" in q for q in large.sql) and len(large.sql) == 1 + 3  # the size, then each check


def test_a_failing_query_is_reported_not_raised(tmp_path) -> None:
    d = _sql_dir(tmp_path, {"t": "-- unique: a\nSELECT 1 AS a\n"})
    [failure] = transform.check_constraints(duckdb.connect(), sql_dir=d)  # table t was never built
    assert failure["check"] == "t.unique" and failure["message"].startswith("CatalogException")


def test_the_models_render_as_jinja_renders_them() -> None:
    """The one-pass fill of `ref`/`lake` gives Jinja's text for every model; any other template (a block, an
    unknown call) still goes through Jinja."""
    import jinja2

    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)

    def lake(source: str, table: str) -> str:
        return f"read_parquet('/lake/bronze/{source}/{table}/*.parquet', union_by_name = true)"

    for m in transform.discover().values():
        assert transform.render_model(m.source, lake) == env.from_string(m.source).render(
            ref=lambda n: n, lake=lake), m.name
    assert transform.render_model("{% if true %}SELECT 1{% endif %}\n", lake) == "SELECT 1"
    with pytest.raises(jinja2.UndefinedError):
        transform.render_model("SELECT * FROM {{ source('x') }}\n", lake)


# -- the real models ----------------------------------------------------------------------------
def test_every_mart_declares_a_unique_not_null_id() -> None:
    for m in transform.discover().values():
        if m.layer != "marts":
            continue
        not_null = {c.columns[0] for c in m.constraints if c.kind == "not_null"}
        keys = [c.columns for c in m.constraints if c.kind == "unique"]
        assert keys, f"{m.name}: no unique key"
        assert set(keys[0]) <= not_null, f"{m.name}: its id may be NULL"


def test_the_checks_verify_used_to_hard_code_are_declared() -> None:
    ms = transform.discover()
    assert Constraint("ak_document", "unique", ("doc_key",)) in ms["ak_document"].constraints
    for name, key in (("stg_dsh_sessions", "session_id"), ("stg_skills", "skill_id"), ("stg_code_chunks", "chunk_id")):
        assert Constraint(name, "unique", (key,)) in ms[name].constraints, name


def test_marts_doc_lists_the_constraints() -> None:
    text = marts_doc.render()
    section = text.split("### `ak_document`\n", 1)[1].split("\n### ", 1)[0]
    assert ("Constraints: unique `doc_id`; unique `doc_key`; not null `doc_id`, `doc_key`, `lane`, `kind`, `source`; "
            "`lane` one of `episodes`, `code`, `skills`, `actors`;") in section
    assert "unique (`source`, `unit`)" in text.split("### `ak_source_state`\n", 1)[1]


# -- a built generation -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    out = tmp_path_factory.mktemp("constraints")
    akw_fixtures.generate(out, sessions=SESSIONS, seed=SEED)
    wh = Warehouse.open(out / "dsh", out / "autoclaw", out / "akw")
    assert wh.reindex()["outcome"] == "published"
    return wh


def test_a_built_generation_passes_every_constraint(built: Warehouse) -> None:
    con, _ = generation.open_current(built.paths.generations)
    try:
        assert transform.check_constraints(con) == []
        for table in ("ak_actor", "ak_episode", "ak_document", "ak_event", "ak_relation", "ak_skill_use"):
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] > 0, table  # not vacuous
    finally:
        con.close()


def _damaged_copy(built: Warehouse, dst: Path, *statements: str) -> Path:
    src = generation.current(built.paths.generations).path
    path = dst / src.name
    shutil.copy(src, path)
    con = duckdb.connect(str(path))
    try:
        for sql in statements:
            con.execute(sql)
    finally:
        con.close()
    return path


def _failures(path: Path) -> list[dict[str, Any]]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return transform.check_constraints(con)
    finally:
        con.close()


def test_a_duplicate_id_is_caught(built, tmp_path) -> None:
    path = _damaged_copy(built, tmp_path, "INSERT INTO ak_actor SELECT * FROM ak_actor "
                                          "WHERE actor_id = (SELECT min(actor_id) FROM ak_actor)")
    first = duckdb.connect(str(path), read_only=True).execute("SELECT min(actor_id) FROM ak_actor").fetchone()[0]
    assert _failures(path) == [{"check": "ak_actor.unique", "columns": ["actor_id"], "violations": 1,
                                "examples": [first]}]


def test_a_null_id_is_caught_and_shown_by_another_key(built, tmp_path) -> None:
    path = _damaged_copy(built, tmp_path, "UPDATE ak_document SET doc_key = NULL WHERE doc_id IN (7, 3)",
                         "UPDATE ak_episode SET episode_id = NULL WHERE episode_id = (SELECT max(episode_id) "
                         "FROM ak_episode)")
    assert _failures(path) == [
        {"check": "ak_episode.not_null", "columns": ["episode_id"], "violations": 1, "examples": []},
        {"check": "ak_document.not_null", "columns": ["doc_key"], "violations": 2, "examples": ["3", "7"]},
    ]


def test_a_bad_enum_value_is_caught(built, tmp_path) -> None:
    path = _damaged_copy(built, tmp_path,
                         "UPDATE ak_episode SET outcome = 'sucess' WHERE episode_id IN "
                         "(SELECT episode_id FROM ak_episode ORDER BY episode_id LIMIT 2)",
                         "UPDATE ak_relation SET rel = 'knows' WHERE rel = 'did'")
    did = duckdb.connect(str(path), read_only=True).execute("SELECT count(*) FROM ak_relation "
                                                             "WHERE rel = 'knows'").fetchone()[0]
    got = _failures(path)
    assert [f["check"] for f in got] == ["ak_episode.accepted_values", "ak_relation.accepted_values"]
    assert got[0]["columns"] == ["outcome"] and got[0]["violations"] == 2 and got[0]["examples"] == ["sucess"]
    assert "success" in got[0]["accepted"] and "sucess" not in got[0]["accepted"]
    assert got[1]["columns"] == ["rel"] and got[1]["violations"] == did > 0 and got[1]["examples"] == ["knows"]


def test_a_composite_key_repeat_is_caught(built, tmp_path) -> None:
    path = _damaged_copy(built, tmp_path, "INSERT INTO ak_source_state SELECT * FROM ak_source_state "
                                          "ORDER BY source, unit LIMIT 1")
    [failure] = _failures(path)
    assert failure["check"] == "ak_source_state.unique" and failure["columns"] == ["source", "unit"]
    assert failure["violations"] == 1 and failure["examples"][0].startswith("(")


def test_verify_reports_a_violation_of_the_published_generation(built, tmp_path) -> None:
    """`reindex --mode verify` runs the declared constraints: ok false, the check named as before
    (`ak_document.unique`), nothing changed; a sound copy verifies ok."""
    home = tmp_path / "akw"
    shutil.copytree(built.paths.home, home)
    wh = Warehouse.open(built.paths.home.parent / "dsh", built.paths.home.parent / "autoclaw", home)
    assert wh.reindex(mode="verify")["mismatches"] == []
    gen = generation.current(wh.paths.generations).path
    con = duckdb.connect(str(gen))
    con.execute("INSERT INTO ak_document SELECT * REPLACE (doc_id + 100000 AS doc_id) FROM ak_document "
                "WHERE doc_id = 0")
    key = con.execute("SELECT doc_key FROM ak_document WHERE doc_id = 0").fetchone()[0]
    con.close()
    report = wh.reindex(mode="verify")
    assert report["ok"] is False
    assert report["mismatches"] == [{"check": "ak_document.unique", "columns": ["doc_key"], "violations": 1,
                                     "examples": [key]}]


def test_the_build_refuses_a_generation_that_breaks_a_constraint(built, tmp_path) -> None:
    """The build child's gate: a broken constraint is an error naming the check, so nothing is published."""
    from warehouse.indexing import child

    path = _damaged_copy(built, tmp_path, "INSERT INTO ak_actor SELECT * FROM ak_actor "
                                          "WHERE actor_id = (SELECT min(actor_id) FROM ak_actor)")
    con = duckdb.connect(str(path), read_only=True)
    try:
        with pytest.raises(ValueError, match=r"1 model constraint\(s\) failed: ak_actor\.unique\(actor_id\): 1") as e:
            child._require_constraints(con)
        assert "akw build step: constraints" in e.value.__notes__
        child._require_constraints(duckdb.connect(str(generation.current(built.paths.generations).path),
                                                  read_only=True))  # the intact generation passes
    finally:
        con.close()
