"""Redaction of secrets and PII before anything is written (spec 001 FR-8, AC-10).

One pattern list serves two engines: Python `re` for single strings (errors, logs,
cursors) and polars' Rust regex for whole Parquet columns (the hot path). Patterns
therefore use only the common subset: no look-arounds, no back-references.
Replacements are written in Rust form (`${1}`) and translated for Python.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # polars is imported where frames are redacted, not by every user of redact()
    import polars as pl


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: str
    replacement: str  # Rust/polars syntax: ${1}


def _mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


# Order matters: specific, multi-part secrets first; generic e-mail/phone last.
RULES: tuple[Rule, ...] = (
    Rule("private-key",
         r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
         _mark("private-key")),
    Rule("private-key", r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[A-Za-z0-9+/=\s\\n]*", _mark("private-key")),
    Rule("url-credentials", r"([A-Za-z][A-Za-z0-9+.\-]*://)[^/\s:@\"'<>]+:[^/\s@\"'<>]+@",
         "${1}" + _mark("url-credentials") + "@"),
    Rule("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", _mark("jwt")),
    Rule("api-key", r"\bsk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{16,}", _mark("api-key")),
    Rule("api-key", r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}", _mark("api-key")),
    Rule("api-key", r"\bgithub_pat_[A-Za-z0-9_]{20,}", _mark("api-key")),
    Rule("api-key", r"\bglpat-[A-Za-z0-9_\-]{20,}", _mark("api-key")),
    Rule("api-key", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", _mark("api-key")),
    Rule("api-key", r"\bAIza[0-9A-Za-z_\-]{35}", _mark("api-key")),
    Rule("cloud-key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b", _mark("cloud-key")),
    Rule("secret",
         r"(?i)\b([A-Za-z0-9_]*?(?:aws_secret_access_key|secret_access_key|client_secret|api[_\-]?key|apikey"
         r"|access[_\-]?token|auth[_\-]?token|secret[_\-]?key|secret|token|password|passwd|pwd|пароль))"
         r"([\"']?\s*(?:[:=]|=>)\s*[\"']?|\s+is\s+)([^\s\"',;]{4,})",
         "${1}${2}" + _mark("secret")),
    Rule("secret", r"(?i)(пароль[^:\n]{1,30}:\s*)([^\s\"',;]{4,})", "${1}" + _mark("secret")),
    Rule("secret", r"(?i)(пароль\s+)([^\s\"',;]*\d[^\s\"',;]*)", "${1}" + _mark("secret")),
    Rule("secret", r"(?i)(identified\s+(?:with\s+\S+\s+)?by\s+)'[^'\n]+'", "${1}'" + _mark("secret") + "'"),
    Rule("secret", r"(\bmysql(?:dump|admin)?\b[^\n|;]*?\s-p)([^\s'\"]{4,})", "${1}" + _mark("secret")),
    Rule("bearer", r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*", "${1}" + _mark("bearer")),
    # The local part is the personal bit; the domain is kept because hosts (`deploy@iya.ru`) are what work is about.
    Rule("email", r"[A-Za-z0-9._%+\-]+@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})",
         _mark("email") + "@${1}"),
    Rule("phone", r"\+\d{1,3}[\s\-]?\(?\d{2,4}\)?[\s\-]?\d{2,4}[\s\-]?\d{2,4}(?:[\s\-]?\d{2,4})?", _mark("phone")),
    Rule("phone", r"\b8\s?\(\d{3}\)\s?\d{3}[\s\-]?\d{2}[\s\-]?\d{2}\b", _mark("phone")),
)

# A cheap pre-filter both engines understand: every rule above needs one of these fragments, so a
# string without any cannot contain a secret. Keep it a superset of the rules (tests check it).
HINT = (r"(?i)(-----BEGIN|://|eyJ|sk-|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|AIza|AKIA|ASIA|AGPA|AIDA|AROA"
        r"|secret|token|passw|pwd|пароль|api[_\-]?key|apikey|bearer|identified|mysql|@|\+\d|8\s?\()")

PY_MAX_HITS = 48
_PY = [(re.compile(r.pattern), re.sub(r"\$\{(\d+)\}", r"\\g<\1>", r.replacement)) for r in RULES]
_HINT = re.compile(HINT)


def redact(text: str | None) -> str | None:
    """Redact one string (errors, log lines, cursor values, column values that hit the pre-filter)."""
    if not text or not _HINT.search(text):
        return text
    for rx, repl in _PY:
        text = rx.sub(repl, text)
    return text


def redact_expr(col: pl.Expr) -> pl.Expr:
    """A polars expression that redacts a string column with the same rules (for lazy pipelines)."""
    for r in RULES:
        col = col.str.replace_all(r.pattern, r.replacement)
    return col


def _redact_series(s: pl.Series) -> pl.Series:
    """Only values that hit the pre-filter (one vectorised regex pass) go through the rules."""
    if s.null_count() == s.len():
        return s
    mask = s.str.contains(HINT).fill_null(False)
    if not mask.any():
        return s
    idx = mask.arg_true()
    hits = s.gather(idx)
    import polars as pl

    if hits.len() <= PY_MAX_HITS:  # a few strings: precompiled Python regexes beat compiling 20 Rust ones
        return s.scatter(idx, [redact(v) for v in hits.to_list()])
    return s.scatter(idx, hits.to_frame("v").select(redact_expr(pl.col("v")))["v"])


def redact_frame(df: pl.DataFrame) -> pl.DataFrame:
    """Redact every string and list-of-string column of a frame."""
    import polars as pl

    cols = []
    for name, dtype in df.schema.items():
        if dtype == pl.String:
            red = _redact_series(df[name].clone())
            if red is not df[name]:
                cols.append(red)
        elif isinstance(dtype, pl.List) and dtype.inner == pl.String:  # short lists (names, paths): plain Python
            values = [None if v is None else [redact(x) for x in v] for v in df[name].to_list()]
            cols.append(pl.Series(name, values, dtype=dtype))
    return df.with_columns(cols) if cols else df
