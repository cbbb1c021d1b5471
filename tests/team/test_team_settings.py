"""`lake.*` settings: a password never enters the config (no PostgreSQL needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.errors import KnowledgeError
from warehouse.settings import Settings


@pytest.mark.parametrize("dsn", ["host=db dbname=x user=a password=s3cret", "host=db PASSWORD = s3cret",
                                 "postgresql://a:s3cret@db/x"])
def test_a_password_in_the_catalog_dsn_is_refused(dsn: str) -> None:
    with pytest.raises(KnowledgeError) as e:
        Settings().with_value("lake.catalog", repr(dsn))
    assert e.value.code == "KNOWLEDGE_CONFIG_INVALID" and "s3cret" not in e.value.message
    assert e.value.details["key"] == "lake.catalog"


def test_lake_settings_defaults_and_env_override() -> None:
    s = Settings()
    assert s.lake.backend == "local" and s.lake.catalog is None and "lake" not in s.index_affecting()
    s = Settings.load(Path("/nonexistent/config.yaml"),
                      env={"AKW_LAKE__BACKEND": "ducklake", "AKW_LAKE__WRITER_ID": "alice@laptop"})
    assert s.lake.backend == "ducklake" and s.lake.writer_id == "alice@laptop"
    with pytest.raises(KnowledgeError):
        Settings().with_value("lake.writer_id", "'bad id with spaces'")
    with pytest.raises(KnowledgeError):
        Settings().with_value("lake.backend", "iceberg")
