"""Redaction of secrets and PII before anything is written (spec 001 FR-8, AC-10).

One rule list serves two engines: Python `re` for single strings (errors, logs, cards, whole
code files) and polars' Rust regex for whole Parquet columns (the hot path). Regex rules
therefore use only the common subset: no look-arounds, no back-references; replacements are
written in Rust form (`${1}`) and translated for Python. Two kinds need code, not a regex, and
run in Python only: PEM private-key blocks (replaced line for line, so code chunk line numbers
still match the file) and card numbers (Luhn-checked). Column values that may hold either are
routed to the Python engine, so both engines give the same result by construction.

Every redaction leaves a typed marker, `[REDACTED:<kind>]`, so search stays honest about what
was there. E-mail addresses and phone numbers are PII: `pii=False` (setting `redact_pii`) keeps them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # polars is imported where frames are redacted, not by every user of redact()
    import polars as pl

RULES_VERSION = 5  # bump when what is redacted changes: extractors then re-read every unit


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: str
    replacement: str  # Rust/polars syntax: ${1}
    pii: bool = False
    guard: str | None = None  # Python only: a cheap regex every match contains (skips a slow rule)
    needs: tuple[str, ...] = ()  # Python only: every match contains one of these (lower case)


def mark(kind: str) -> str:
    return f"[REDACTED:{kind}]"


_KEYS = (r"[A-Za-z0-9_]*?(?:aws_secret_access_key|secret_?access_?key|client_secret|api[_\-]?key|apikey"
         r"|access[_\-]?token|auth[_\-]?token|refresh[_\-]?token|secret[_\-]?key|secret|token"
         r"|password|passwd|pwd|пароль)")
_SEP = r"(\\?[\"']?\s*(?:[:=]|=>)\s*)"  # `k=v`, `k: v`, `"k": "v"` and JSON-in-JSON `\"k\": \"v\"`
_V = r"[^\s\"',;\\\[][^\s\"',;\\]"  # a bare value, never an earlier marker (`[REDACTED:…]`): _V + "{3,}"
# Every key in _KEYS ends with one of these, right before its separator. Python's engine is slow on
# the lazy key prefix (3x the other rules together), so it runs those rules only where this matches.
_KEY_GUARD = r"(?i)(?:key|secret|token|passw(?:or)?d|pwd|пароль)(?:\\?[\"']?\s*(?:[:=]|=>)|\s+is\s+)"

# Order matters: specific, multi-part secrets first; generic assignments next; e-mail/phone last.
RULES: tuple[Rule, ...] = (
    # (no `[` in the user: `https://[REDACTED:github_token]@host` is a marker, not user:password)
    # (an empty user, `redis://:pw@host`, has a password too; one `@` inside it, `u:pa@ss@host`, is taken when
    # what follows it is no host name: `u:pw@host.io/a@b` keeps its host)
    Rule("url_password", r"([A-Za-z][A-Za-z0-9+.\-]*://)([^/\s:@\"'<>\[]*):[^\s@\"'<>]+(?:@[^\s@/.\"'<>]+)?@",
         "${1}${2}:" + mark("url_password") + "@", needs=("://",)),
    Rule("slack_webhook", r"(hooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_\-]{16,}",
         "${1}" + mark("slack_webhook"), needs=("hooks.slack.com",)),
    Rule("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", mark("jwt"), needs=("eyj",)),
    Rule("anthropic_key", r"\bsk-ant-[A-Za-z0-9_\-]{16,}", mark("anthropic_key"), needs=("sk-ant-",)),
    Rule("openai_key", r"\bsk-(?:proj-|svcacct-|admin-|live-|test-)?[A-Za-z0-9_\-]{16,}", mark("openai_key"),
         needs=("sk-",)),
    Rule("stripe_key", r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}", mark("stripe_key"), needs=("k_live_", "k_test_")),
    Rule("stripe_webhook_secret", r"\bwhsec_[A-Za-z0-9]{16,}", mark("stripe_webhook_secret"), needs=("whsec_",)),
    Rule("github_token", r"\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
         mark("github_token"), needs=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    Rule("gitlab_token", r"\bglpat-[A-Za-z0-9_\-]{20,}", mark("gitlab_token"), needs=("glpat-",)),
    Rule("slack_token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", mark("slack_token"), needs=("xox",)),
    Rule("google_key", r"\bAIza[0-9A-Za-z_\-]{35}", mark("google_key"), needs=("aiza",)),
    Rule("aws_key", r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b", mark("aws_key"),
         needs=("akia", "asia", "agpa", "aida", "aroa")),
    Rule("aws_secret", r"(?i)\b([A-Za-z0-9_]*?(?:aws_secret_access_key|secret_?access_?key))" + _SEP
         + r"(\\?[\"']?)[A-Za-z0-9/+=]{16,}", "${1}${2}${3}" + mark("aws_secret"), guard=_KEY_GUARD),
    # a quoted value is taken whole (it may hold spaces); then the bare `k=v` / `k: v` shapes
    Rule("secret", r"(?i)\b(" + _KEYS + ")" + _SEP + r"(\\?\")[^\"\\\n\[][^\"\\\n]{0,255}\\?\"",
         "${1}${2}${3}" + mark("secret") + "${3}", guard=_KEY_GUARD),
    Rule("secret", r"(?i)\b(" + _KEYS + r")(\\?[\"']?\s*(?:[:=]|=>)\s*\\?[\"']?|\s+is\s+)(" + _V + "{3,})",
         "${1}${2}" + mark("secret"), guard=_KEY_GUARD),
    Rule("secret", r"(?i)(пароль[^:\n]{1,30}:\s*)(" + _V + "{3,})", "${1}" + mark("secret"),
         needs=("пароль",)),
    # the same word ASCII-escaped, as JSON written with ensure_ascii carries it: \u043f\u0430\u0440\u043e\u043b\u044c,
    # once more escaped (\\u043f…) when that JSON text sits inside another JSON string (a tool's arguments)
    Rule("secret", r"(?i)(\\{1,2}u043f\\{1,2}u0430\\{1,2}u0440\\{1,2}u043e\\{1,2}u043b\\{1,2}u044c[^:\n\"]{0,60}:\s*"
         r"\\{0,3}[\"']?)(" + _V + "{3,})", "${1}" + mark("secret"), needs=("\\u043f",)),
    # environment-style names: DB_PASS=…, STRIPE_SIGNING_SECRET: … (upper case: a config key, its value a secret);
    # a *_KEY only with a value that looks generated (a digit in 5+ characters: `STORAGE_KEY = 'vue-todo-list'`
    # in real work is a name, ENCRYPTION_KEY=9f8e7d6c… is not). No \b before these four: after a JSON-escaped
    # line break (`\nDB_PASS=…`, `\ncurl -u …`) the n is a word character; the upper-case name (or the command)
    # still has to start the match
    Rule("secret", r"([A-Z][A-Z0-9_]*_(?:PASS|PASSWORD|PASSWD|PWD|SECRET|TOKEN|CREDENTIALS))(\\?[\"']?\s*[:=]\s*"
         r"\\?[\"']?)(" + _V + "{3,})", "${1}${2}" + mark("secret"),
         needs=("_pass", "_pwd", "_secret", "_token", "_credentials")),
    Rule("secret", r"([A-Z][A-Z0-9_]*_KEY)(\\?[\"']?\s*[:=]\s*\\?[\"']?)"
         r"([A-Za-z0-9+/=_.\-]{4,}\d[A-Za-z0-9+/=_.\-]*|[A-Za-z0-9+/=_.\-]*\d[A-Za-z0-9+/=_.\-]{4,})",
         "${1}${2}" + mark("secret"), needs=("_key",)),
    Rule("secret", r"(?i)(accountkey\s*=\s*)[A-Za-z0-9+/]{16,}=*", "${1}" + mark("secret"), needs=("accountkey",)),
    Rule("secret", r"(curl\b[^\n|;]*?\s(?:-u\s*|--user[=\s]\s*)[\"']?[^\s:\"']+:)([^\s\"'\\]{3,})",
         "${1}" + mark("secret"), needs=("curl",)),
    Rule("secret", r"(sshpass\b[^\n|;]*?\s-p\s*[\"']?)([^\s\"'\\]{3,})", "${1}" + mark("secret"), needs=("sshpass",)),
    Rule("secret", r"(?i)(пароль\s+)([^\s\"',;\\]*\d[^\s\"',;\\]*)", "${1}" + mark("secret"), needs=("пароль",)),
    Rule("secret", r"(?i)(identified\s+(?:with\s+\S+\s+)?by\s+)'[^'\n]+'", "${1}'" + mark("secret") + "'",
         needs=("identified",)),
    # (no \b before it: after a JSON-escaped line break, `\nmysql -p…`, the n is a word character)
    Rule("secret", r"(mysql(?:dump|admin)?\b[^\n|;]*?\s-p)([^\s'\"\\\[][^\s'\"\\]{3,})", "${1}" + mark("secret"),
         needs=("mysql",)),
    Rule("bearer", r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/\-]{16,}=*", "${1}" + mark("bearer"), needs=("bearer",)),
    Rule("basic_auth", r"(?i)(authorization\\?[\"']?\s*[:=]\s*\\?[\"']?\s*basic\s+)[A-Za-z0-9+/]{12,}=*",
         "${1}" + mark("basic_auth"), needs=("authorization",)),
    # The local part is the personal bit; the domain is kept because hosts (`deploy@iya.ru`) are what work is about.
    Rule("email", r"[A-Za-z0-9._%+\-]+@([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,})",
         mark("email") + "@${1}", pii=True, needs=("@",)),
    Rule("phone", r"\+\d{1,3}[\s\-]?\(?\d{2,4}\)?[\s\-]?\d{2,4}[\s\-]?\d{2,4}(?:[\s\-]?\d{2,4})?"  # +7 912 …, +1 415 …
         r"|\b8\s?\(\d{3}\)\s?\d{3}[\s\-]?\d{2}[\s\-]?\d{2}\b"  # 8 (912) 345-67-89
         r"|\b8[\s\-]\d{3}[\s\-]\d{3}[\s\-]?\d{2}[\s\-]?\d{2}\b|\b89\d{9}\b"  # 8 913 482 17 67, 89134821768
         r"|\(\d{3}\)\s?\d{3}[\s.\-]\d{4}\b|\b\d{3}[.\-]\d{3}[.\-]\d{4}\b",  # (415) 555-0199, 415-555-0199
         mark("phone"), pii=True),
)

# A cheap pre-filter both engines understand: every rule needs one of these fragments, so a string
# without any cannot contain a secret. Keep it a superset of the rules (tests check it).
HINT = (r"(?i)(-----BEGIN|-----END|://|eyJ|sk-|k_live_|k_test_|whsec_|gh[pousr]_|github_pat_|glpat-|xox[abposr]-"
        r"|AIza|AKIA|ASIA|AGPA|AIDA|AROA|secret|token|passw|pwd|пароль|\\u043f"
        r"|(?-i:_(?:PASS|KEY|CREDENTIALS))|accountkey|sshpass|curl|api[_\-]?key|apikey|bearer|authorization|identified|mysql|@|\+\d|8\s?\(|8[\s\-]\d{3}"
        r"|89\d{9}|\(\d{3}\)|\d{3}[.\-]\d{3}[.\-]\d{4}|(?:2[2-7]|[3-6]\d)\d{2}[ \-]?\d{4,6}[ \-]?\d{4,5}"
        r"|(?-i:[A-Z]{2}\d{2} ?[A-Z0-9]{4}))")
# Values that need the Python-only kinds (PEM blocks, card numbers, IBANs).
PY_ONLY_HINT = (r"(-----BEGIN|-----END|(?:2[2-7]|[3-6]\d)\d{2}[ \-]?\d{4,6}[ \-]?\d{4,5}"
                r"|[A-Z]{2}\d{2} ?[A-Z0-9]{4} ?[A-Z0-9]{4})")

PY_MAX_HITS = 48
_HINT = re.compile(HINT)
_PY_ONLY = re.compile(PY_ONLY_HINT)
_PY = [(re.compile(r.pattern), re.sub(r"\$\{(\d+)\}", r"\\g<\1>", r.replacement), r.pii,
        re.compile(r.guard) if r.guard else None, r.needs) for r in RULES]

_PEM_HEAD = r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"  # (PGP: `… PRIVATE KEY BLOCK-----`)
_PEM_TAIL = r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
_PEM = [
    re.compile(_PEM_HEAD + r"[\s\S]*?" + _PEM_TAIL),  # a whole block
    re.compile(_PEM_HEAD + r"(?:[A-Za-z0-9+/=\s]|\\[nr])*"),  # a block cut after its head
    re.compile(r"(?:[A-Za-z0-9+/=]{16,}[ \t]*(?:\r?\n|\\n))+" + _PEM_TAIL),  # a block cut before its tail
]
# not a group of a UUID or another hex id (`60951513-9539-4343-ac5c-…` is Luhn-valid by chance)
# (Mastercard's 2221-2720 series too, but no date (`20240314-055854`) and no decimal fraction (`42.2718…`))
_CARD = re.compile(r"(?<![0-9A-Fa-f]-)(?<!\.)\b(?:2[2-7]|[3-6]\d)\d{2}(?:[ \-]?\d){9,15}\b(?!-[0-9A-Fa-f])")
# IBAN: country, check digits, 11-30 letters and digits, grouped by four or not; mod-97 checked (`_iban`)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")


def _keep_breaks(m: re.Match[str]) -> str:
    """The marker plus the line breaks the block spanned, so line numbers after it still hold."""
    return mark("private_key") + "\n" * m.group(0).count("\n")


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(m: re.Match[str]) -> str:
    """A Luhn-valid run of 13-19 digits; a grouped run (`4111 1111 1111 1111 2 items`) is also tried
    at each group boundary, since the candidate regex may have run on into the next number."""
    raw = m.group(0)
    spans = [g.span() for g in re.finditer(r"\d+", raw)]
    for n in range(len(spans), 0, -1):
        end = spans[n - 1][1]
        digits = re.sub(r"\D", "", raw[:end])
        if 13 <= len(digits) <= 19 and _luhn(digits):
            return mark("card") + raw[end:]
        if len(spans) == 1:
            break
    return raw


def _iban(m: re.Match[str]) -> str:
    """An IBAN whose check digits hold (ISO 13616: the number, country and check digits moved to its end,
    letters as 10-35, is 1 mod 97); anything else that looks like one (an id, a hash) is kept."""
    raw = m.group(0)
    compact = raw.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return raw
    digits = "".join(str(int(c, 36)) for c in compact[4:] + compact[:4])
    return mark("iban") if int(digits) % 97 == 1 else raw


def redact(text: str | None, pii: bool = True) -> str | None:
    """Redact one string (errors, log lines, cards, whole files, column values that hit the pre-filter)."""
    if not text or not _HINT.search(text):
        return text
    return redact_hinted(text, pii)


def redact_hinted(text: str, pii: bool = True) -> str:
    """`redact` of a value already known to hit the pre-filter `HINT` (found by one polars pass over a column,
    as redact_frame and the quality scan find it), without scanning it for the hint again."""
    py_only = _PY_ONLY.search(text) is not None
    if py_only and "-----" in text:
        for rx in _PEM:
            text = rx.sub(_keep_breaks, text)
    low = text.lower()
    guarded: dict[re.Pattern[str], bool] = {}  # a guard's verdict on the text as it is (three rules share one)
    for rx, repl, is_pii, guard, needs in _PY:
        if not pii and is_pii:
            continue
        if not needs or any(n in low for n in needs):
            if guard is not None:
                if guard not in guarded:
                    guarded[guard] = guard.search(text) is not None
                if not guarded[guard]:
                    continue
            new = rx.sub(repl, text)
            if new is not text:  # re.sub returns its input when nothing matched
                text, guarded = new, {}
    if py_only:
        text = _CARD.sub(_card, text)
        text = _IBAN.sub(_iban, text)
    return text


def redact_expr(col: pl.Expr, pii: bool = True) -> pl.Expr:
    """A polars expression with the regex rules (values with PEM blocks, card numbers or IBANs need `redact`)."""
    for r in RULES:
        if pii or not r.pii:
            col = col.str.replace_all(r.pattern, r.replacement)
    return col


def _hinted(df: pl.DataFrame, names: list[str]) -> dict[str, list[int]]:
    """The rows of each string column whose value hits the pre-filter: one Rust regex pass over all the
    frame's string columns stacked. Python's `re` runs this alternation ~17x slower per character, and a
    polars call per column paid its fixed cost ~12 times per unit written (about half of a cold extract)."""
    import polars as pl

    stacked = pl.concat([df.get_column(n) for n in names]) if len(names) > 1 else df.get_column(names[0])
    found: dict[str, list[int]] = {}
    for pos in stacked.str.contains(HINT).arg_true().to_list():
        found.setdefault(names[pos // df.height], []).append(pos % df.height)
    return found


def _redact_rows(s: pl.Series, rows: list[int], pii: bool) -> pl.Series:
    """`s` with the values at `rows` (those that hit the pre-filter) put through the rules."""
    import polars as pl

    idx = pl.Series("idx", rows, dtype=pl.UInt32)
    hits = s.gather(idx)
    if hits.len() <= PY_MAX_HITS:  # a few strings: precompiled Python regexes beat compiling 20 Rust ones
        return s.scatter(idx, [redact_hinted(v, pii) for v in hits.to_list()])
    out = hits.to_frame("v").select(redact_expr(pl.col("v"), pii))["v"]
    py = hits.str.contains(PY_ONLY_HINT).fill_null(False)
    if py.any():
        py_idx = py.arg_true()
        out = out.scatter(py_idx, [redact_hinted(v, pii) for v in hits.gather(py_idx).to_list()])
    return s.scatter(idx, out)


def redact_frame(df: pl.DataFrame, pii: bool = True) -> pl.DataFrame:
    """Redact every string and list-of-string column of a frame."""
    import polars as pl

    names = [name for name, dtype in df.schema.items() if dtype == pl.String]
    cols = []
    if names and df.height:
        cols = [_redact_rows(df[name].clone(), rows, pii) for name, rows in _hinted(df, names).items()]
    for name, dtype in df.schema.items():
        if isinstance(dtype, pl.List) and dtype.inner == pl.String:  # short lists (names, paths): plain Python
            values = [None if v is None else [redact(x, pii) for x in v] for v in df[name].to_list()]
            cols.append(pl.Series(name, values, dtype=dtype))
    return df.with_columns(cols) if cols else df
