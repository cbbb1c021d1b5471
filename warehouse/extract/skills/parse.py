"""Parse one SKILL.md: YAML front matter + Markdown body, and the relative paths the body mentions.

Kept apart from the extractor so the parsing rules (BOM, CRLF, missing front matter, loose
types in hand-written YAML) can be tested and reused without touching the lake.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from warehouse.core.yaml_load import safe_load as yaml_safe_load

KNOWN_KEYS = ("name", "description", "whenToUse", "metadata", "disable-model-invocation",
              "user-invocable", "license", "allowed-tools")
_DELIM = re.compile(r"^---[ \t]*$")
_END = re.compile(r"^(---|\.\.\.)[ \t]*$")


class SkillParseError(ValueError):
    """SKILL.md cannot be read as UTF-8 text with a valid front matter mapping."""


@dataclass
class ParsedSkill:
    name: str | None
    description: str | None
    when_to_use: str | None
    metadata_json: str | None
    frontmatter_json: str | None  # keys other than KNOWN_KEYS
    disable_model_invocation: bool | None
    user_invocable: bool | None
    license: str | None
    allowed_tools: list[str] = field(default_factory=list)
    body: str = ""


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=_json_default)


def _json_default(o: Any) -> str:
    if isinstance(o, dt.date | dt.datetime):
        return o.isoformat()
    return str(o)


def _text(value: Any) -> str | None:
    """Front matter strings may be numbers, dates or lists in hand-written YAML: keep them as text."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, bool | int | float | dt.date):
        return str(value)
    return _json(value)


def _bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "on", "false", "no", "off"):
        return value.strip().lower() in ("true", "yes", "on")
    return None


def split_tools(value: Any) -> list[str]:
    """`allowed-tools` is a list or a string separated by commas/spaces; `Bash(git add:*)` stays whole."""
    if value is None:
        return []
    if isinstance(value, list):
        items = (split_tools(v) if isinstance(v, list) else [str(v).strip()] for v in value if v is not None)
        return [t for group in items for t in group if t]
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in str(value):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        if depth == 0 and (ch == "," or ch.isspace()):
            if cur:
                out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return out


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(yaml text or None, body). Text must already be BOM-free with '\\n' line ends."""
    lines = text.split("\n")
    if not lines or not _DELIM.match(lines[0]):
        return None, text
    for i in range(1, len(lines)):
        if _END.match(lines[i]):
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1:])
    raise SkillParseError("front matter is not closed by '---'")


def parse_skill_md(raw: bytes) -> ParsedSkill:
    """Parse SKILL.md bytes; raises SkillParseError for non-UTF-8, unclosed or non-mapping YAML."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SkillParseError("SKILL.md is not UTF-8") from e
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    fm_text, body = split_front_matter(text)
    fm: Any = {}
    if fm_text is not None:
        try:
            fm = yaml_safe_load(fm_text)
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 2}" if mark is not None else ""
            raise SkillParseError(f"front matter is not valid YAML{where}") from e
        if fm is None:
            fm = {}
        if not isinstance(fm, dict):
            raise SkillParseError("front matter is not a mapping")
    fm = {str(k): v for k, v in fm.items()}
    meta = fm.get("metadata")
    extra = {k: v for k, v in fm.items() if k not in KNOWN_KEYS}
    return ParsedSkill(
        name=_text(fm.get("name")),
        description=_text(fm.get("description")),
        when_to_use=_text(fm.get("whenToUse")),
        metadata_json=_json(meta) if meta is not None else None,
        frontmatter_json=_json(extra) if extra else None,
        disable_model_invocation=_bool(fm.get("disable-model-invocation")),
        user_invocable=_bool(fm.get("user-invocable")),
        license=_text(fm.get("license")),
        allowed_tools=split_tools(fm.get("allowed-tools")),
        body=body.lstrip("\n"),
    )


# -- paths the body mentions -----------------------------------------------------------
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
_PATHLIKE = re.compile(r"^[A-Za-z0-9_\-][A-Za-z0-9_.\-/]*\.[A-Za-z0-9]{1,8}$")


def _candidate(token: str, need_slash: bool) -> str | None:
    """A relative file path inside the skill folder, or None (URLs, absolute, `..`, bare words)."""
    t = token.strip().strip("\"'").rstrip(".,:;)")
    t = t.split("#", 1)[0].split("?", 1)[0]
    if "://" in t or t.startswith(("/", "~", "@", "$", "mailto:")):
        return None
    while t.startswith("./"):
        t = t[2:]
    if not _PATHLIKE.match(t) or "//" in t:
        return None
    parts = t.split("/")
    if ".." in parts or (need_slash and len(parts) < 2):
        return None
    if len(parts) > 1 and "." in parts[0]:
        return None  # `example.com/x.html`, `file.py/...`: not a folder path
    return t


def referenced_paths(body: str) -> list[str]:
    """Relative paths named in inline code spans (must contain '/') or link targets, sorted, unique.

    Fenced code blocks are skipped: their commands usually name files of the user's project.
    """
    found: set[str] = set()
    in_fence = False
    for line in body.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in _LINK.finditer(line):
            c = _candidate(m.group(1), need_slash=False)
            if c:
                found.add(c)
        for m in _CODE_SPAN.finditer(line):
            for tok in m.group(1).split():
                c = _candidate(tok, need_slash=True)
                if c:
                    found.add(c)
    return sorted(found)


def missing_references(body: str, exists: set[str]) -> list[str]:
    """Referenced paths with no matching file/dir in the skill folder (`exists` = its relative paths).

    A repo-rooted mention like `skills/<name>/notes.md` counts as present when a trailing part of it
    (`notes.md`) exists, so only genuinely absent files are flagged; nothing is ever invented.
    """
    out = []
    for ref in referenced_paths(body):
        parts = ref.split("/")
        if not any("/".join(parts[i:]) in exists for i in range(len(parts))):
            out.append(ref)
    return out
