"""Split a text file into search chunks: by top-level symbol where a parser is cheap, else line windows.

- Python: top-level def/class via `ast` (decorators included); SyntaxError -> windows.
- JS/TS/PHP/Go/shell: a regex on unindented function/class/type lines; a symbol ends at the first
  line starting with `}` or before the next symbol.
- Markdown: one chunk per heading section (symbol = heading text), fenced code ignored.
- Anything else, and code between symbols: windows of 60 lines overlapping by 10.
Symbols/sections longer than MAX_SPAN lines are split into windows that keep the symbol.
Lines are 1-based and inclusive; `\\r\\n` and `\\r` count as one line break, as in `ast`.
"""

from __future__ import annotations

import ast
import gc
import re
import warnings
from dataclasses import dataclass
from pathlib import PurePosixPath

WINDOW, OVERLAP, MAX_SPAN = 60, 10, 200
CHUNKER_VERSION = 1  # bump when chunk boundaries change: old chunks are then not reused

LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".php": "php", ".go": "go", ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".md": "markdown",
    ".markdown": "markdown", ".mdx": "markdown", ".rs": "rust", ".java": "java", ".kt": "kotlin",
    ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby",
    ".swift": "swift", ".sql": "sql", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
    ".html": "html", ".css": "css", ".scss": "css", ".vue": "vue", ".svelte": "svelte", ".txt": "text",
    ".rst": "rst", ".ini": "ini", ".cfg": "ini", ".xml": "xml", ".lua": "lua", ".r": "r", ".ps1": "powershell",
}
NAMES = {"Makefile": "make", "Dockerfile": "dockerfile", "CMakeLists.txt": "cmake"}

_ID = r"[A-Za-z_$][\w$]*"
_JS = [
    (re.compile(rf"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*({_ID})"), "function"),
    (re.compile(rf"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+({_ID})"), "class"),
    (re.compile(rf"^(?:export\s+)?(?:const|let|var)\s+({_ID})\s*(?::[^=]+)?=\s*(?:async\s+)?"
                rf"(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|{_ID}\s*=>)"), "function"),
]
_TS = [*_JS, (re.compile(rf"^(?:export\s+)?(?:declare\s+)?(?:interface|type|enum)\s+({_ID})"), "type")]
_PATTERNS = {
    "javascript": _JS,
    "typescript": _TS,
    "php": [(re.compile(r"^(?:(?:abstract|final|readonly)\s+)*(?:class|interface|trait|enum)\s+(\w+)"), "class"),
            (re.compile(r"^function\s+&?\s*(\w+)"), "function")],
    "go": [(re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"), "function"),
           (re.compile(r"^type\s+([A-Za-z_]\w*)"), "type")],
    "shell": [(re.compile(r"^function\s+([A-Za-z_][\w.:-]*)"), "function"),
              (re.compile(r"^([A-Za-z_][\w.:-]*)\s*\(\)\s*(?:\{.*)?$"), "function")],
}
_COMMENT = ("//", "/*", "*", "#", "@")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class Chunk:
    start_line: int
    end_line: int
    source_kind: str  # function | class | type | heading | window
    symbol: str | None
    text: str


def language_of(rel_path: str, first_line: str = "") -> str:
    p = PurePosixPath(rel_path)
    if p.name in NAMES:
        return NAMES[p.name]
    lang = LANGUAGES.get(p.suffix.lower())
    if lang:
        return lang
    if not p.suffix and first_line.startswith("#!") and re.search(r"\b(ba|z|k|da)?sh\b", first_line):
        return "shell"
    return "text"


def split_lines(text: str) -> list[str]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def chunk_text(text: str, language: str) -> list[Chunk]:
    return chunk_lines(split_lines(text), language)


def chunk_lines(lines: list[str], language: str) -> list[Chunk]:
    """Chunks of a file already split by `split_lines`; every non-blank line is in at least one chunk."""
    if language == "python":
        spans = _python_spans("\n".join(lines))
    elif language == "markdown":
        spans = _markdown_spans(lines)
    elif language in _PATTERNS:
        spans = _regex_spans(lines, _PATTERNS[language])
    else:
        spans = []
    return _assemble(lines, spans or [])


Span = tuple[int, int, str, str | None]  # start, end, kind, symbol


_PY_TOP = re.compile(r"^(?:async[ \t]+def|def|class)[ \t]", re.M)


def _python_spans(src: str) -> list[Span] | None:
    if not _PY_TOP.search(src):
        return []  # no top-level def/class: skip the (costly) parse
    was_enabled = gc.isenabled()
    gc.disable()  # the AST is a burst of small objects; cyclic GC passes would cost ~40%
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. must not spam stderr
            tree = ast.parse(src)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    finally:
        if was_enabled:
            gc.enable()
    spans: list[Span] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            spans.append((start, node.end_lineno or node.lineno, kind, node.name))
    return spans


def _regex_spans(lines: list[str], patterns: list[tuple[re.Pattern[str], str]]) -> list[Span]:
    starts: list[tuple[int, str, str]] = []
    for i, line in enumerate(lines, 1):
        if not line or line[0].isspace():
            continue
        for rx, kind in patterns:
            m = rx.match(line)
            if m:
                starts.append((i, kind, m.group(1)))
                break
    spans: list[Span] = []
    prev_end = 0
    for k, (start, kind, name) in enumerate(starts):
        limit = starts[k + 1][0] - 1 if k + 1 < len(starts) else len(lines)
        end = next((j for j in range(start + 1, limit + 1) if lines[j - 1].startswith("}")), limit)
        while start - 1 > prev_end and lines[start - 2].strip().startswith(_COMMENT):
            start -= 1  # doc comments / decorators directly above belong to the symbol
        spans.append((start, end, kind, name))
        prev_end = end
    return spans


def _markdown_spans(lines: list[str]) -> list[Span]:
    heads: list[tuple[int, str]] = []
    fence = False
    for i, line in enumerate(lines, 1):
        if _FENCE.match(line):
            fence = not fence
        elif not fence and (m := _HEADING.match(line)):
            heads.append((i, m.group(2)))
    return [(s, heads[k + 1][0] - 1 if k + 1 < len(heads) else len(lines), "heading", title)
            for k, (s, title) in enumerate(heads)]


def _assemble(lines: list[str], spans: list[Span]) -> list[Chunk]:
    """Spans plus windows over the non-blank gaps between them, in line order."""
    out: list[Chunk] = []
    pos = 1
    for start, end, kind, symbol in sorted(spans):
        out += _windows(lines, pos, start - 1, "window", None)
        end = _trim_end(lines, start, end)
        if end - start + 1 > MAX_SPAN:
            out += _windows(lines, start, end, kind, symbol)
        else:
            out.append(Chunk(start, end, kind, symbol, "\n".join(lines[start - 1:end])))
        pos = max(pos, end + 1)
    out += _windows(lines, pos, len(lines), "window", None)
    return out


def _trim_end(lines: list[str], lo: int, hi: int) -> int:
    while hi > lo and not lines[hi - 1].strip():
        hi -= 1
    return hi


def _windows(lines: list[str], lo: int, hi: int, kind: str, symbol: str | None) -> list[Chunk]:
    while lo <= hi and not lines[lo - 1].strip():
        lo += 1
    hi = _trim_end(lines, lo, hi)
    out: list[Chunk] = []
    if lo > hi:
        return out
    s = lo
    while True:
        e = min(s + WINDOW - 1, hi)
        out.append(Chunk(s, e, kind, symbol, "\n".join(lines[s - 1:e])))
        if e >= hi:
            return out
        s += WINDOW - OVERLAP
