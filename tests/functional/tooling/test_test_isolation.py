"""The suite's own isolation: a test passes whichever tests its worker ran before it.

Pairs that failed in one order only (each passed alone) are run in that order in a pytest
of their own.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]


def _pytest(tmp_path: pathlib.Path, *paths: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0",
         f"--basetemp={tmp_path / 'basetemp'}", *paths],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_configuration_parses_after_a_test_that_loaded_an_auth_plugin(tmp_path):
    """keystoneauth leaves the password plugin's options (auth_url required) on the global
    CONF; the harness forgets them after each test, so parsing a configuration without
    them still works in the next one."""
    result = _pytest(tmp_path, "tests/unit/magnum_conductor/identity/test_keystone.py",
                     "tests/unit/magnum_common/test_config.py")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert " passed" in result.stdout and "failed" not in result.stdout
