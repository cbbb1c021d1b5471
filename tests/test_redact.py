"""Redaction: each secret/PII form is removed by both engines (Python re and polars), ordinary text is kept."""

import polars as pl
import pytest

from warehouse.redact import redact, redact_frame

SECRETS = [
    ("mysql://root:CANARYpw91x@176.99.5.35:3306/shop", "CANARYpw91x"),
    ("export ANTHROPIC_API_KEY=sk-ant-CANARYa1b2c3d4e5f6g7h8i9", "sk-ant-CANARYa1b2c3d4e5f6g7h8i9"),
    ("token ghp_CANARY0123456789abcdefghijklmnopqrstuv", "ghp_CANARY0123456789abcdefghijklmnopqrstuv"),
    ("slack xoxb-123456789012-CANARYabcdef", "xoxb-123456789012-CANARYabcdef"),
    ("aws AKIACANARY0123456789", "AKIACANARY0123456789"),
    ("aws_secret_access_key=CANARYwJalrXUtnFEMI/K7MDENG/bPxRfiCYEX", "CANARYwJalrXUtnFEMI/K7MDENG/bPxRfiCYEX"),
    ("password=CANARYhunter22", "CANARYhunter22"),
    ('{"password": "CANARYjsonpw1"}', "CANARYjsonpw1"),
    ("пароль: CANARYqwerty77", "CANARYqwerty77"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIICANARYxyz\n-----END RSA PRIVATE KEY-----", "MIICANARYxyz"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaCANARYkey\\n", "b3BlbnNzaCANARYkey"),
    ("write to ivan.canary@example.ru please", "ivan.canary@example.ru"),
    ("call +7 912 345-67-89 now", "912 345-67-89"),
    ("Authorization: Bearer CANARYabcdefghijklmnop", "CANARYabcdefghijklmnop"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJDQU5BUlkifQ.CANARYsignature123", "CANARYsignature123"),
]


@pytest.mark.parametrize(("text", "secret"), SECRETS)
def test_secret_removed_by_both_engines(text: str, secret: str) -> None:
    assert secret not in (redact(text) or "")
    df = redact_frame(pl.DataFrame({"t": [text], "l": [[text]]}))
    assert secret not in df["t"][0]
    assert secret not in df["l"][0][0]
    assert df["t"][0] == redact(text)


@pytest.mark.parametrize(
    "text",
    [
        "ssh root@176.99.5.35 и проверь /etc/nginx/sites-enabled/iya.ru.conf",
        "deploy-iya-ru: max_tokens: 4000, token_count=5",
        "Почини доступ к MySQL на 176.99.5.35, потом rotate certs for api.shop-example.com",
        "def restore_mysql_access(host: str) -> None: ...",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    kept = redact(text) or ""
    for word in ("176.99.5.35", "iya.ru", "deploy-iya-ru", "restore_mysql_access", "4000"):
        if word in text:
            assert word in kept


def test_email_keeps_host_for_search() -> None:
    assert redact("ssh deploy@iya.ru") == "ssh [REDACTED:email]@iya.ru"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("DB_PASSWORD=CANARYdbpw42", "CANARYdbpw42"),
        ("PGPASSWORD=CANARYpg77 psql -h db-01.internal", "CANARYpg77"),
        ("'password' => 'CANARYphp99',", "CANARYphp99"),
        ("mysql -uroot -pCANARYcli55 -h 176.99.5.35", "CANARYcli55"),
        ("ALTER USER 'shop'@'%' IDENTIFIED BY 'CANARY sql 1';", "CANARY sql 1"),
        ("Пароль от root: CANARYru31", "CANARYru31"),
        ("новый пароль CANARY7x", "CANARY7x"),
    ],
)
def test_config_and_shell_secret_forms(text: str, secret: str) -> None:
    assert secret not in (redact(text) or "")
    assert secret not in redact_frame(pl.DataFrame({"t": [text]}))["t"][0]


def test_prefilter_is_a_superset_of_the_rules() -> None:
    """A string the pre-filter skips must never contain anything a rule would redact."""
    import re

    from warehouse.redact import HINT, RULES

    hint = re.compile(HINT)
    for text, _secret in SECRETS:
        assert hint.search(text)
    for rule in RULES:  # every rule's own trigger text is caught by the hint
        sample = {"private-key": "-----BEGIN RSA PRIVATE KEY-----", "url-credentials": "x://a:b@",
                  "jwt": "eyJ", "email": "a@b.io", "bearer": "Bearer ", "cloud-key": "AKIA"}.get(rule.kind)
        if sample:
            assert hint.search(sample), rule.kind


def test_bulk_frames_take_the_vectorised_path_with_the_same_result() -> None:
    from warehouse.redact import PY_MAX_HITS

    texts = [t for t, _ in SECRETS] * (PY_MAX_HITS // len(SECRETS) + 3)
    assert len(texts) > PY_MAX_HITS
    out = redact_frame(pl.DataFrame({"t": texts}))["t"].to_list()
    assert out == [redact(t) for t in texts]
    for (_, secret), red in zip(SECRETS, out, strict=False):
        assert secret not in red
