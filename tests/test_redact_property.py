"""Property test: random text with an embedded secret of any kind loses the secret and keeps the rest.

Hypothesis draws the secret (its random part, its shape) and the surrounding prose (Latin and
Cyrillic words, punctuation; no digits or key words, which would be secrets of their own); both
engines (Python and polars) must agree.
"""

from __future__ import annotations

import string

import polars as pl
from akw_fixtures.canaries import luhn_complete
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from warehouse.core.redact import redact, redact_frame

ALNUM = string.ascii_letters + string.digits
B64URL = ALNUM + "_-"


def s(alphabet: str, lo: int, hi: int) -> st.SearchStrategy[str]:
    return st.text(alphabet=alphabet, min_size=lo, max_size=hi)


@st.composite
def secret(draw: st.DrawFn) -> tuple[str, list[str]]:
    """(text holding a secret, the secret's pieces that must be gone)."""
    kind = draw(st.sampled_from([
        "openai", "openai_proj", "anthropic", "stripe", "github", "github_pat", "slack", "google", "aws_key",
        "aws_secret", "jwt", "bearer", "pem", "url", "assignment", "card", "phone", "email"]))
    match kind:
        case "openai":
            v = "sk-" + draw(s(ALNUM, 20, 50))
            return v, [v]
        case "openai_proj":
            v = "sk-proj-" + draw(s(B64URL, 20, 60))
            return v, [v]
        case "anthropic":
            v = "sk-ant-api03-" + draw(s(B64URL, 20, 60))
            return v, [v]
        case "stripe":
            v = draw(st.sampled_from(["sk_live_", "rk_live_", "sk_test_"])) + draw(s(ALNUM, 16, 40))
            return v, [v]
        case "github":
            v = draw(st.sampled_from(["ghp_", "gho_", "ghs_", "ghu_"])) + draw(s(ALNUM, 36, 40))
            return v, [v]
        case "github_pat":
            v = "github_pat_" + draw(s(ALNUM + "_", 22, 82))
            return v, [v]
        case "slack":
            v = f"xox{draw(st.sampled_from('abpr'))}-{draw(s(string.digits, 8, 12))}-{draw(s(ALNUM, 10, 30))}"
            return v, [v]
        case "google":
            v = "AIza" + draw(s(B64URL, 35, 35))
            return v, [v]
        case "aws_key":
            v = draw(st.sampled_from(["AKIA", "ASIA"])) + draw(s(string.ascii_uppercase + string.digits, 16, 16))
            return v, [v]
        case "aws_secret":
            v = draw(s(ALNUM + "/+", 40, 40))
            sep = draw(st.sampled_from([" = ", "=", ": "]))
            return f"aws_secret_access_key{sep}{v}", [v]
        case "jwt":
            v = "eyJ" + ".".join([draw(s(B64URL, 10, 40)), draw(s(B64URL, 10, 60)), draw(s(B64URL, 10, 60))])
            return v, [v]
        case "bearer":
            v = draw(s(ALNUM + "._-", 20, 60))
            return f"Authorization: Bearer {v}", [v]
        case "pem":
            lines = draw(st.lists(s(ALNUM + "+/", 16, 64), min_size=1, max_size=8))
            label = draw(st.sampled_from(["RSA ", "EC ", "OPENSSH ", ""]))
            body = "\n".join(lines)
            return f"-----BEGIN {label}PRIVATE KEY-----\n{body}\n-----END {label}PRIVATE KEY-----", lines
        case "url":
            pw = draw(s(ALNUM + "/+_-.!~*", 6, 30))
            scheme = draw(st.sampled_from(["mysql", "postgres", "redis", "https", "mongodb+srv"]))
            return f"{scheme}://app:{pw}@db.example.com:5432/app", [pw]
        case "assignment":
            key = draw(st.sampled_from(["password", "passwd", "token", "secret", "api_key", "client_secret",
                                        "DB_PASSWORD", "auth_token", "пароль"]))
            v = draw(s(ALNUM + "!#$%^&*()-_+=.~/", 6, 30))
            shape = draw(st.sampled_from(["{k}={v}", "{k}: {v}", '"{k}": "{v}"', "{k}: '{v}'", '\\"{k}\\": \\"{v}\\"',
                                          "{k} = {v}"]))
            return shape.format(k=key, v=v), [v]
        case "card":
            digits = luhn_complete(draw(st.sampled_from("3456")) + draw(s(string.digits, 14, 14)))
            sep = draw(st.sampled_from([" ", "-", ""]))
            v = sep.join(digits[i:i + 4] for i in range(0, 16, 4))
            return v, [v]
        case "phone":
            d = draw(s(string.digits, 10, 10))
            v = draw(st.sampled_from([f"+7 9{d[:2]} {d[2:5]}-{d[5:7]}-{d[7:9]}", f"({d[:3]}) {d[3:6]}-{d[6:]}",
                                      f"{d[:3]}-{d[3:6]}-{d[6:]}", f"+1 {d[:3]} {d[3:6]} {d[6:]}"]))
            return v, [v]
        case "email":
            local = draw(s(string.ascii_lowercase + string.digits, 1, 10)) + draw(
                s(string.ascii_lowercase + string.digits + "._", 0, 10)) + draw(s(string.ascii_lowercase, 1, 4))
            return f"{local}@example.org", [local + "@"]
    raise AssertionError(kind)


WORDS = st.lists(s(string.ascii_letters + "абвгдежзиклмнопрстуфхцчшщэюя", 1, 12), min_size=0, max_size=8)
SEP = st.sampled_from([" ", "\n", "\t", " (", ", ", ". ", " «"])
END = st.sampled_from([" ", "\n", ") ", ", ", ". ", "» "])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=WORDS, found=secret(), sep=SEP, end=END, after=WORDS)
def test_embedded_secret_is_gone_and_the_rest_kept(before: list[str], found: tuple[str, list[str]], sep: str,
                                                  end: str, after: list[str]) -> None:
    snippet, pieces = found
    # prose that happens to spell the secret (`after=["AAAAAA"]` beside password AAAAAA) is not a leak
    assume(not any(p in " ".join(before) or p in " ".join(after) for p in pieces))
    text = " ".join(before) + sep + snippet + end + " ".join(after)
    out = redact(text) or ""
    for p in pieces:
        assert p not in out, (snippet, out)
    assert "[REDACTED:" in out
    for w in before + after:  # the prose around the secret is kept
        assert w in out, (w, text, out)
    assert redact_frame(pl.DataFrame({"t": [text]}))["t"][0] == out  # both engines agree
    assert redact(out) == out  # idempotent: code files are redacted whole, then again by the lake
