"""The home has one owner: every location under `AKW_HOME` is a property of `Paths`, so following a
home through the code means reading one class, not joining folder names found in ten modules."""

from __future__ import annotations

import ast
from pathlib import Path

from warehouse.core.paths import Paths

ROOT = Path(__file__).resolve().parent.parent / "warehouse"
OWNER = ROOT / "core" / "paths.py"


def _joins_onto_home(tree: ast.AST) -> list[int]:
    """Lines where `<anything>.home / "literal"` builds a path under the home by hand."""
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
            and isinstance(node.left, ast.Attribute) and node.left.attr == "home"
            and isinstance(node.right, ast.Constant | ast.JoinedStr)]


def test_no_module_but_paths_builds_a_location_under_the_home() -> None:
    found = {str(p.relative_to(ROOT)): lines for p in sorted(ROOT.rglob("*.py")) if p != OWNER
             if (lines := _joins_onto_home(ast.parse(p.read_text(encoding="utf-8"))))}
    assert found == {}, f"add a `Paths` property instead: {found}"


def test_every_location_lies_under_the_home(tmp_path: Path) -> None:
    paths = Paths.resolve(dsh_home=tmp_path / "dsh", autoclaw_root=tmp_path / "ac", home=tmp_path / "akw")
    names = [n for n, v in vars(Paths).items() if isinstance(v, property)]
    assert len(names) >= 20
    locations = {n: getattr(paths, n) for n in names}
    assert all(p.is_relative_to(paths.home) for p in locations.values()), locations
    assert len(set(locations.values())) == len(locations), "two names for one location"
