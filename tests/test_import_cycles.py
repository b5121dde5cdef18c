"""No import cycle between the packages of ``audit`` at run time.

A package here is a first-level package of ``audit`` (``audit.engine``, ``audit.history``...), a
game's package (``audit.games.bataille``) or a top-level module (``audit.outputs``). Imports made
for a type checker only (under ``if TYPE_CHECKING:``) are not run, so they are left out; imports
inside functions are run when the function is, so they count. Cycles inside one package are
that package's own business.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "audit"


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _unit(module: str) -> str:
    """The package a module belongs to, as this test counts them (a ``__main__`` is a program of
    its own: nothing imports it)."""
    parts = module.split(".")
    if parts[-1] == "__main__":
        return module
    if parts[:2] == ["audit", "games"] and len(parts) >= 3:
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_time_imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The modules ``module`` imports at run time (absolute names)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                prefix = ".".join([*base, node.module] if node.module else base)
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _graph() -> dict[str, set[str]]:
    modules = {_module(p): p for p in PACKAGE.rglob("*.py")}
    edges: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for name in _run_time_imports(tree, module, path.name == "__init__.py"):
            if name in modules and _unit(name) != _unit(module):
                edges[_unit(module)].add(_unit(name))
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                connect(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for node in sorted(set(edges) | {n for targets in edges.values() for n in targets}):
        if node not in index:
            connect(node)
    return out


def test_the_cycle_finder_finds_a_cycle_and_only_one():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_type_checking_imports_are_not_run_time_imports():
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from ..rulesets import Library\n"
        "def f():\n    from .. import outputs\n"
    )
    found = _run_time_imports(tree, "audit.engine.table", is_package=False)
    assert "audit.outputs" in found and "audit.rulesets" not in found


def test_no_import_cycle_between_packages_at_run_time():
    edges = _graph()
    assert edges["audit.cli"]  # the graph is read (the command line imports much)
    assert _cycles(edges) == []
