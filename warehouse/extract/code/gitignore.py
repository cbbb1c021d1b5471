"""The common subset of `.gitignore` semantics, enough to keep build output and vendored code out of the index.

Supported: comments, blank lines, `\\` escapes, `!` negation, trailing `/` (directories only), a `/` at the
start or middle anchors the pattern to the .gitignore's folder, `*`, `?`, `[...]`, and `**` (leading,
trailing, middle). Nested .gitignore files apply below their folder; the last matching rule wins, and the
walker never descends into an ignored folder (so, as in git, a file cannot be re-included under it).
Not supported: `.git/info/exclude`, `core.excludesFile`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


def _translate(pat: str) -> str:
    out: list[str] = []
    i, n = 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat.startswith("**", i):
                at_start = i == 0 or pat[i - 1] == "/"
                if at_start and pat.startswith("**/", i):
                    out.append("(?:.*/)?")
                    i += 3
                    continue
                if at_start and i + 2 == n:
                    out.append(".*")
                    i += 2
                    continue
                out.append("[^/]*")
                i += 2
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pat.find("]", i + 2 if pat.startswith(("[!", "[^"), i) else i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                body = pat[i + 1:j]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def parse_rules(text: str) -> list[Rule]:
    rules: list[Rule] = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        stripped = line.rstrip(" \t")
        if stripped.endswith("\\") and len(stripped) < len(line):
            stripped += " "  # "\ " keeps one escaped trailing space
        line = stripped
        negate = line.startswith("!")
        if negate or line.startswith(("\\!", "\\#")):
            line = line[1:]  # drop "!" or the escaping backslash
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        prefix = "" if anchored else "(?:.*/)?"
        try:
            rx = re.compile("^" + prefix + _translate(line) + "$")
        except re.error:
            continue  # a malformed class: git ignores such a line too
        rules.append(Rule(rx, negate, dir_only))
    return rules


class IgnoreStack:
    """The .gitignore rules in force for one folder: (base folder relative to the root, rules) pairs."""

    def __init__(self, frames: tuple[tuple[str, tuple[Rule, ...]], ...] = ()) -> None:
        self.frames = frames

    def push(self, base: str, text: str) -> IgnoreStack:
        rules = tuple(parse_rules(text))
        return IgnoreStack((*self.frames, (base, rules))) if rules else self

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        """rel_path: POSIX path relative to the workspace root."""
        verdict = False
        for base, rules in self.frames:
            if base:
                if not rel_path.startswith(base + "/"):
                    continue
                sub = rel_path[len(base) + 1:]
            else:
                sub = rel_path
            for r in rules:
                if (is_dir or not r.dir_only) and r.regex.match(sub):
                    verdict = not r.negate
        return verdict
