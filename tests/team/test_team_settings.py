"""`lake.*` settings: a password never enters the config (no PostgreSQL needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from warehouse.core.errors import KnowledgeError
from warehouse.core.settings import Settings


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


def test_an_s3_data_path_gets_httpfs_and_a_secret_from_the_aws_environment() -> None:
    """Configured, not contacted: the secret is made from AWS_* variables; nothing talks to S3 here."""
    from warehouse.core.db import connect
    from warehouse.team.catalog import s3_secret

    con = connect(extensions=("httpfs",))
    assert s3_secret(con, {}) is False
    env = {"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "not-a-real-secret",
           "AWS_ENDPOINT_URL": "http://minio.internal:9000"}
    assert s3_secret(con, env) is True
    row = con.execute("SELECT type, provider, secret_string FROM duckdb_secrets() WHERE name = 'team_lake_s3'"
                      ).fetchone()
    assert row[0] == "s3" and row[1] == "config" and "minio.internal:9000" in row[2]
    assert "not-a-real-secret" not in row[2]  # DuckDB redacts the secret in its own listing
