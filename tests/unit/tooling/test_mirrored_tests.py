"""Unit tests mirror the code: every module with logic has a test file at its mirrored path
(tests/README.md, "Unit tests mirror the code"), and this test fails when one has none.

The rule is mechanical, read from the module's syntax tree:

* A module has logic when one of its functions (or lambdas) decides or computes something:
  any statement or expression beyond calling, naming, assigning a call's result and
  returning it (a branch, loop, comprehension, operator, f-string, subscript, ``try``,
  ``with``...). A module of declarations (constants, option lists) has none, nor has a
  thin entry point whose functions only wire other modules together
  (``magnum_conductor/cmd.py``: parse the configuration, launch the service, run it).
* A module of ``localcloud/`` that imports a package this environment cannot import runs in
  the local cloud's own virtualenv (the services load it: the ML2 and Octavia drivers, the
  Heat plugin and its facade generator); its test runs there too, so it is mirrored under
  ``tests/localcloud/harness/`` instead of ``tests/unit/localcloud/``.

``python -m tests.unit.tooling.test_mirrored_tests`` prints the gap.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[3]
PACKAGES = ("magnum_api", "magnum_common", "magnum_conductor", "drivers", "localcloud")

#: What a function that only wires other modules together is made of.
_WIRING = (ast.Expr, ast.Return, ast.Assign, ast.Pass, ast.Call, ast.keyword, ast.Name,
           ast.Attribute, ast.Constant, ast.Load, ast.Store)


def _wiring_only(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> bool:
    if isinstance(function, ast.Lambda):
        return False  # a lambda is an expression: it computes something
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return all(isinstance(node, _WIRING) for statement in body for node in ast.walk(statement))


@functools.cache
def _tree(path: pathlib.Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def has_logic(path: pathlib.Path) -> bool:
    """Whether a function or lambda of the module (at any depth) does more than wiring."""
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
               and not _wiring_only(node) for node in ast.walk(_tree(path)))


@functools.cache
def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def runs_in_the_cloud_venv(path: pathlib.Path) -> bool:
    """A ``localcloud/`` module importing what only the cloud's virtualenv holds."""
    if path.relative_to(REPO).parts[0] != "localcloud":
        return False
    nodes = list(ast.walk(_tree(path)))
    tops = {alias.name.split(".")[0] for node in nodes
            if isinstance(node, ast.Import) for alias in node.names}
    tops |= {node.module.split(".")[0] for node in nodes
             if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module}
    return not all(_importable(top) for top in tops)


def mirrored(path: pathlib.Path) -> pathlib.Path:
    """``pkg/a/b.py`` -> ``tests/unit/pkg/a/test_b.py``; ``pkg/a/__init__.py`` ->
    ``tests/unit/pkg/test_a.py`` (the package's test beside its folder); a module of the
    cloud's virtualenv, ``localcloud/a/b.py`` -> ``tests/localcloud/harness/a/test_b.py``."""
    rel = path.relative_to(REPO)
    folder, name = (rel.parent.parent, rel.parent.name) if rel.name == "__init__.py" \
        else (rel.parent, rel.stem)
    if runs_in_the_cloud_venv(path):
        return REPO / "tests" / "localcloud" / "harness" / folder.relative_to("localcloud") \
            / f"test_{name}.py"
    return REPO / "tests" / "unit" / folder / f"test_{name}.py"


def modules_with_logic() -> list[pathlib.Path]:
    return [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))
            if has_logic(path)]


def missing() -> list[str]:
    """The modules with logic whose mirrored test file does not exist, repo-relative."""
    return [str(path.relative_to(REPO)) for path in modules_with_logic()
            if not mirrored(path).exists()]


def test_every_module_with_logic_has_its_mirrored_test():
    gap = missing()
    assert not gap, (f"{len(gap)} module(s) with logic have no test at the mirrored path "
                     "(tests/README.md): " + ", ".join(
                         f"{module} -> {mirrored(REPO / module).relative_to(REPO)}"
                         for module in gap))


def test_the_mirror_of_a_module_a_package_and_a_module_of_the_cloud_venv():
    assert mirrored(REPO / "magnum_conductor" / "pki" / "x509.py") == (
        REPO / "tests" / "unit" / "magnum_conductor" / "pki" / "test_x509.py")
    assert mirrored(REPO / "magnum_conductor" / "pki" / "cert_manager" / "__init__.py") == (
        REPO / "tests" / "unit" / "magnum_conductor" / "pki" / "test_cert_manager.py")
    plugin = REPO / "localcloud" / "heat" / "plugins" / "localcloud_heat_plugin.py"
    assert runs_in_the_cloud_venv(plugin)  # it imports heat, which only the cloud's venv has
    assert mirrored(plugin) == (REPO / "tests" / "localcloud" / "harness" / "heat" / "plugins"
                                / "test_localcloud_heat_plugin.py")
    assert not runs_in_the_cloud_venv(REPO / "localcloud" / "guard.py")
    assert not runs_in_the_cloud_venv(REPO / "magnum_conductor" / "cmd.py")


def test_declarations_and_wiring_have_no_logic_of_their_own(tmp_path):
    assert not has_logic(REPO / "localcloud" / "__main__.py")
    assert not has_logic(REPO / "drivers" / "k8s_fedora_coreos_v1" / "driver.py")
    assert not has_logic(REPO / "magnum_conductor" / "cmd.py")  # config, launch, run
    assert has_logic(REPO / "magnum_common" / "states.py")
    found = {str(path.relative_to(REPO)) for path in modules_with_logic()}
    assert "magnum_api/controllers/v1/clusters.py" in found
    assert "magnum_common/db/x509keypairs.py" not in found  # a repository declared by its table
    cases = (("return other.call(x, key=y)", False),
             ('"""Doc."""\n    value = a.b(c)\n    a.d(value)', False),
             ("return x if y else z", True), ("return f'{x}'", True),
             ("return argv[1:]", True), ("return [a for a in b]", True),
             ("return a or b", True), ("with a:\n        pass", True),
             ("return (lambda: 1)()", True))
    for number, (body, logic) in enumerate(cases):
        module = tmp_path / f"m{number}.py"
        module.write_text(f"def f():\n    {body}\n")
        assert has_logic(module) is logic, body
    module = tmp_path / "lambda.py"
    module.write_text("RUN = lambda job: job.go()\n")
    assert has_logic(module)


if __name__ == "__main__":
    gap = missing()
    print("\n".join(f"{module} -> {mirrored(REPO / module).relative_to(REPO)}"
                    for module in gap))
    print(f"{len(gap)} of {len(modules_with_logic())} modules with logic have no mirrored "
          "test")
