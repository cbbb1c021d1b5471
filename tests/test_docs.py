"""User docs stay true: the marts reference is generated from the SQL, and README commands exist."""

from pathlib import Path

from warehouse.indexing import marts_doc

ROOT = Path(__file__).resolve().parent.parent


def test_marts_reference_is_in_sync_with_sql() -> None:
    assert marts_doc.DOC.read_text(encoding="utf-8") == marts_doc.render(), (
        "run: python -m warehouse.indexing.marts_doc")


def test_readme_names_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make demo" in readme and "make test" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
