"""The folder tree is the data flow: no import cycles, and no module imports a stage above its own.

`STAGES` below is the one list of stages, lowest first; the README's layout table and ADR 0004 are
checked against it. A module may import its own stage and the ones below it, at module level or
inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

STAGES: list[tuple[str, tuple[str, ...]]] = [
    # the test-data generator (`fixtures/`): imports nothing of the warehouse, loaded only to generate
    ("fixtures", ("akw_fixtures",)),
    ("core", ("warehouse", "warehouse.core")),
    ("home", ("warehouse.home",)),
    ("team", ("warehouse.team",)),
    ("extract", ("warehouse.extract",)),
    ("indexing", ("warehouse.indexing",)),
    ("pipeline", ("warehouse.pipeline",)),
    ("search", ("warehouse.search",)),
    ("cards", ("warehouse.cards",)),
    ("dispatch", ("warehouse.dispatch",)),
    ("lifecycle", ("warehouse.lifecycle",)),
    ("tools", ("warehouse.evaluation", "warehouse.bench", "warehouse.quality", "warehouse.reports")),
    ("api", ("warehouse.api",)),
    ("surfaces", ("warehouse.cli", "warehouse.__main__", "warehouse.daemon", "warehouse.mcp", "warehouse.ui")),
]
"""The stages, lowest first: the one list. The README's layout table and ADR 0004 are checked against it."""

# importable name -> folder (pyproject `package-dir`: the generator lives in `fixtures/`)
PACKAGE_DIRS = {"warehouse": ROOT / "warehouse", "akw_fixtures": ROOT / "fixtures"}


def _module_name(package: str, path: Path) -> str:
    parts = [package, *path.relative_to(PACKAGE_DIRS[package]).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(pkg, p): p for pkg, folder in PACKAGE_DIRS.items() for p in sorted(folder.rglob("*.py"))}


def stage_of(module: str) -> int:
    best, best_len = None, -1
    for rank, (_name, prefixes) in enumerate(STAGES):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    assert best is not None, f"{module} belongs to no stage: add it to STAGES (and to ADR 0004)"
    return best


def _resolve(name: str) -> str | None:
    """The project module an imported name refers to (a submodule if there is one), else None."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    is_pkg = MODULES[module].name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")[: len(module.split(".")) - node.level + (1 if is_pkg else 0)]
                base = ".".join([*anchor, base] if base else anchor)
            names = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for n in names:
            target = _resolve(n)
            if target and target != module:
                found.add(target)
    return found


def test_every_module_has_a_stage() -> None:
    for module in MODULES:
        stage_of(module)


def test_no_module_imports_a_stage_above_it() -> None:
    upward = [f"{m} ({STAGES[stage_of(m)][0]}) imports {t} ({STAGES[stage_of(t)][0]})"
              for m in MODULES for t in sorted(imports_of(m)) if stage_of(t) > stage_of(m)]
    assert upward == []


def test_there_are_no_import_cycles() -> None:
    graph = {m: imports_of(m) for m in MODULES}
    # a package's __init__ importing its own submodules is how packages work, not a cycle
    graph = {m: {t for t in ts if not t.startswith(m + ".")} for m, ts in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert cycles == []


@pytest.mark.parametrize("module", ["warehouse.cli", "warehouse.home.status", "warehouse.search.service"])
def test_light_modules_do_not_load_the_extract_stack_or_the_generator(module: str) -> None:
    """`akw status`, search and the CLI's start-up stay free of polars/pyarrow and the test-data generator."""
    import subprocess
    import sys

    code = (f"import sys, {module}; bad = [m for m in ('polars', 'pyarrow', 'akw_fixtures', 'warehouse.extract') "
            "if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == ""


def test_the_import_checker_sees_a_violation() -> None:
    """The checks above can fail: the build stage does see an upward import when one exists."""
    assert stage_of("warehouse.search.service") > stage_of("warehouse.pipeline.reindex")
    assert "warehouse.indexing.transform" in imports_of("warehouse.indexing.child")


def _table_stages(doc: Path, heading: str) -> list[str]:
    """The first column of the first table after `heading` in a Markdown file."""
    text = doc.read_text(encoding="utf-8")
    lines = text[text.index(heading):].splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("|"))
    rows = []
    for ln in lines[start + 2:]:
        if not ln.startswith("|"):
            break
        rows.append(ln.split("|")[1].strip().split(" ")[0])
    return rows


@pytest.mark.parametrize(("doc", "heading"), [("README.md", "## Layout"), ("docs/adr/0004-layout.md", "## Decision")])
def test_the_docs_list_the_same_stages_in_the_same_order(doc: str, heading: str) -> None:
    assert _table_stages(ROOT / doc, heading) == [name for name, _ in STAGES]


def test_every_package_is_shipped() -> None:
    """pyproject lists its packages (the SQL and the generator live outside `warehouse/`): none is missing."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {m for m, p in MODULES.items() if p.name == "__init__.py"} | {"warehouse.sql"}
    assert found <= listed
    roots = {"warehouse.sql": ROOT / "sql", "akw_fixtures": ROOT / "fixtures", "warehouse": ROOT / "warehouse"}
    for name in listed - found:  # the rest: data-only folders (templates, SQL), listed so setuptools ships them quietly
        top = next(r for r in sorted(roots, key=len, reverse=True) if name.startswith(r + "."))
        folder = roots[top].joinpath(*name[len(top) + 1:].split("."))
        assert folder.is_dir() and any(folder.iterdir()) and not list(folder.glob("*.py")), name
