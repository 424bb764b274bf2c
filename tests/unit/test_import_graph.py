"""The doors run one way: which package may import which, and no import cycles.

Read from the source (every ``import`` statement, also those inside functions, but not a
script's ``if __name__ == "__main__":`` block, which runs in a module of its own), so a
door opened by a lazy import is found as well:

* ``magnum_api`` imports neither ``magnum_conductor`` nor ``drivers``;
* ``magnum_conductor`` reaches drivers only through ``magnum_common.drivers``;
* ``drivers`` import neither ``magnum_api`` nor ``magnum_conductor``;
* ``magnum_common`` imports none of them;
* no module imports itself back through other modules.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("magnum_api", "magnum_conductor", "magnum_common", "drivers")
FORBIDDEN = {
    "magnum_api": {"magnum_conductor", "drivers"},
    "magnum_conductor": {"magnum_api", "drivers"},
    "drivers": {"magnum_api", "magnum_conductor"},
    "magnum_common": {"magnum_api", "magnum_conductor", "drivers"},
}


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(path): path for package in PACKAGES
            for path in sorted((REPO / package).rglob("*.py"))}


def _imports(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    """The first-party modules ``name`` imports (``from pkg import mod`` counts as pkg.mod
    when that is a module)."""
    found = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), str(path))
    tree.body = [node for node in tree.body if not _is_main_block(node)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t.split(".")[0] in PACKAGES)
    return found


def _is_main_block(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__")


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_the_graph_sees_every_package():
    graph = _graph()
    assert {name.split(".")[0] for name in graph} == set(PACKAGES)
    assert "magnum_common.drivers.registry" in graph["magnum_conductor.engine.job"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_against_the_doors(package):
    wrong = sorted(f"{module} imports {target}"
                   for module, targets in _graph().items() if module.split(".")[0] == package
                   for target in targets if target.split(".")[0] in FORBIDDEN[package])
    assert not wrong, "\n".join(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in graph.get(node, ()):
            if succ not in graph:
                continue
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_there_are_no_import_cycles():
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
