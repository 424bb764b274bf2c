"""The architecture guide's walk of a cluster create names files and functions that exist,
and its count of them is the table's."""

from __future__ import annotations

import ast
import pathlib
import re

REPO = pathlib.Path(__file__).resolve().parents[3]
GUIDE = REPO / "doc" / "source" / "contributor" / "architecture.rst"


def _walk() -> list[tuple[str, str]]:
    """(file, function) of every row of the walk's table."""
    rows = re.findall(r"^   \* - \d+\n     - ``([^`]+)``\n     - ``([^`]+)``$",
                      GUIDE.read_text(), re.M)
    assert rows, "no walk table found"
    return rows


def _defines(path: pathlib.Path, qualified: str) -> bool:
    """Whether ``path`` defines ``qualified`` (``function``, ``Class.method``, or a
    function defined inside one, ``f.<locals>.inner``, as a profiler names it)."""
    scope: list[ast.stmt] = ast.parse(path.read_text()).body
    for name in (part for part in qualified.split(".") if part != "<locals>"):
        found = next((node for node in scope
                      if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                      and node.name == name), None)
        if found is None:
            return False
        scope = found.body
    return True


def test_every_step_of_the_walk_names_a_function_its_file_defines():
    missing = [f"{path}: {func}" for path, func in _walk()
               if not (REPO / path).is_file() or not _defines(REPO / path, func)]
    assert not missing


def test_the_stated_count_is_the_table_and_the_walk_ends_at_stacks_create():
    rows = _walk()
    stated = re.search(r"\*\*(\d+) functions in (\d+) files\*\*", GUIDE.read_text())
    assert stated and (int(stated[1]), int(stated[2])) == (len(rows), len({p for p, _ in rows}))
    last_file, last_function = rows[-1]
    source = ast.get_source_segment(
        (REPO / last_file).read_text(),
        next(node for node in ast.parse((REPO / last_file).read_text()).body
             if isinstance(node, ast.FunctionDef) and node.name == last_function))
    assert "heat.stacks.create(" in source


def test_every_file_the_guide_names_exists():
    named = set(re.findall(r"``((?:magnum_api|magnum_common|magnum_conductor|drivers|"
                           r"localcloud|tests|db)/[\w/.]*)``", GUIDE.read_text()))
    assert [name for name in sorted(named) if not (REPO / name).exists()] == []


def test_the_guide_is_in_the_toctree():
    assert "contributor/architecture" in (REPO / "doc" / "source" / "index.rst").read_text()
