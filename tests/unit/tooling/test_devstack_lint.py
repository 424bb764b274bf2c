"""The devstack plugin must stay bashate-clean: devstack's own gate lints plugins the same way."""

from __future__ import annotations

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
PLUGIN_FILES = ("devstack/plugin.sh", "devstack/settings", "devstack/lib/magnum")


def test_plugin_files_pass_bashate_with_every_rule_an_error():
    bashate = pathlib.Path(sys.executable).parent / "bashate"
    result = subprocess.run(
        [str(bashate), "-v", "--error", "E*", *PLUGIN_FILES],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Running bashate on devstack/lib/magnum" in result.stdout


def test_plugin_files_parse_as_bash():
    for path in PLUGIN_FILES:
        result = subprocess.run(["bash", "-n", path], cwd=REPO, capture_output=True, text=True)
        assert result.returncode == 0, f"{path}: {result.stderr}"
