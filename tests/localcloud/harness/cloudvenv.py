"""Running code where the local cloud's services run it: the modules their processes load
(the Heat plugin and facade generator, the ML2 and Octavia drivers) import Heat, Neutron or
Octavia, which only the cloud's virtualenv holds. A probe runs there in a fresh interpreter
with the module's directory on its path (as the service's own ``plugin_dirs`` or package
install puts it) and prints its findings as one JSON document for the test to check."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from localcloud.layout import HERE, Layout

LOCALCLOUD = Path(HERE)


def probe(localcloud: dict, code: str, path: Path, env: dict[str, str] | None = None) -> Any:
    """Run ``code`` with the cloud venv's python, ``path`` importable; its JSON output."""
    python = Layout(str(localcloud["state_dir"])).python
    res = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=180,
                         env={**os.environ, "PYTHONPATH": str(path), **(env or {})})
    assert res.returncode == 0, f"the probe failed in the cloud's venv:\n{res.stderr[-4000:]}"
    return json.loads(res.stdout.strip().splitlines()[-1])
