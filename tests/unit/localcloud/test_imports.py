"""The localcloud package's import graph: no cycles, and the standard library only where it runs
before any virtualenv exists (the command line, the main job's launcher)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import localcloud

ROOT = Path(localcloud.__file__).resolve().parent
#: Run by the machine's python3 before the cloud's or the project's virtualenv exists.
PRE_VENV = ("localcloud.__main__", "localcloud.main_job")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """Every module of the package proper (directories with an ``__init__.py``)."""
    found = {}
    for path in ROOT.rglob("*.py"):
        if all((d / "__init__.py").exists() for d in path.parents if ROOT in (d, *d.parents)):
            found[_module_name(path)] = path
    return found


def _imports(name: str, path: Path, lazy: bool = True) -> set[str]:
    """Modules ``name`` imports: anywhere in its body (a lazy import is an import too), or
    with ``lazy=False`` only at import time (module level)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree) if lazy else tree.body:
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{alias.name}" for alias in node.names}
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: {m for m in _imports(name, path) if m in modules and m != name}
            for name, path in modules.items()}


def test_the_package_has_no_import_cycle():
    graph = _graph()
    state: dict[str, str] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                raise AssertionError("import cycle: " + " -> ".join(trail + [node, nxt]))
            if nxt not in state:
                visit(nxt, trail + [node])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert {"localcloud.cli", "localcloud.cloud", "localcloud.full"} <= set(graph)


def test_what_runs_before_any_virtualenv_uses_only_the_standard_library():
    """The launcher's modules import nothing else; the main job's scenario modules it reaches
    import other packages only inside the functions that run in the project's venv."""
    modules, graph = _modules(), _graph()
    reached, todo = set(), list(PRE_VENV)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += graph[name]
    assert {"localcloud.cli", "localcloud.full", "localcloud.scenario.services"} <= reached
    foreign = {
        f"{name} imports {imp}"
        for name in reached
        for imp in _imports(name, modules[name], lazy=not name.startswith("localcloud.scenario"))
        if imp.split(".")[0] not in sys.stdlib_module_names and imp.split(".")[0] != "localcloud"
        and imp != "__future__"
    }
    assert not foreign, sorted(foreign)
