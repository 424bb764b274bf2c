"""Unit tests mirror the code: which modules with logic have no test file at their mirrored
path (tests/README.md, "Unit tests mirror the code").

A module has logic when it defines a function or a method; what holds only declarations
(constants, option lists, a ``__main__`` shim calling another module's ``main``) needs no
test of its own. ``python -m tests.unit.tooling.test_mirrored_tests`` prints the gap.
"""

from __future__ import annotations

import ast
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[3]
PACKAGES = ("magnum_api", "magnum_common", "magnum_conductor", "drivers", "localcloud")


def has_logic(path: pathlib.Path) -> bool:
    """Whether the module defines a function or a method (at any depth)."""
    tree = ast.parse(path.read_text(), str(path))
    return any(isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               for node in ast.walk(tree))


def mirrored(path: pathlib.Path) -> pathlib.Path:
    """``pkg/a/b.py`` -> ``tests/unit/pkg/a/test_b.py``; ``pkg/a/__init__.py`` ->
    ``tests/unit/pkg/test_a.py`` (the package's test beside its folder)."""
    rel = path.relative_to(REPO)
    if rel.name == "__init__.py":
        return REPO / "tests" / "unit" / rel.parent.parent / f"test_{rel.parent.name}.py"
    return REPO / "tests" / "unit" / rel.parent / f"test_{rel.stem}.py"


def modules_with_logic() -> list[pathlib.Path]:
    return [path for package in PACKAGES for path in sorted((REPO / package).rglob("*.py"))
            if has_logic(path)]


def missing() -> list[str]:
    """The modules with logic whose mirrored test file does not exist, repo-relative."""
    return [str(path.relative_to(REPO)) for path in modules_with_logic()
            if not mirrored(path).exists()]


def test_the_mirror_of_a_module_and_of_a_package():
    assert mirrored(REPO / "magnum_conductor" / "pki" / "x509.py") == (
        REPO / "tests" / "unit" / "magnum_conductor" / "pki" / "test_x509.py")
    assert mirrored(REPO / "magnum_conductor" / "pki" / "cert_manager" / "__init__.py") == (
        REPO / "tests" / "unit" / "magnum_conductor" / "pki" / "test_cert_manager.py")


def test_declarations_and_shims_have_no_logic_of_their_own():
    assert not has_logic(REPO / "localcloud" / "__main__.py")
    assert not has_logic(REPO / "drivers" / "k8s_fedora_coreos_v1" / "driver.py")
    assert has_logic(REPO / "magnum_common" / "states.py")
    found = {str(path.relative_to(REPO)) for path in modules_with_logic()}
    assert "magnum_api/controllers/v1/clusters.py" in found
    assert "magnum_common/db/x509keypairs.py" not in found  # a repository declared by its table


if __name__ == "__main__":
    gap = missing()
    print("\n".join(gap))
    print(f"{len(gap)} of {len(modules_with_logic())} modules with logic have no mirrored "
          "unit test")
