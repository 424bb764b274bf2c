"""Run every benchmark in turn and print their numbers (``tox -e bench``).

Each benchmark is its own script (see its docstring for options and targets); this runner
only sequences them so one command prints every figure the issues ask for. Numbers are
printed, never asserted. Pass benchmark names to run a subset, e.g. ``api conductor_sync``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ("api", "conductor_create", "conductor_sync", "cluster_credentials")


def main(argv: list[str]) -> int:
    names = argv or list(ORDER)
    failed = []
    for name in names:
        script = HERE / f"bench_{name}.py"
        if not script.exists():
            print(f"unknown benchmark {name!r}; known: {', '.join(ORDER)}", file=sys.stderr)
            return 2
        print(f"\n===== {script.name} =====", flush=True)
        started = time.monotonic()
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        print(f"===== {script.name}: exit {result.returncode} after "
              f"{time.monotonic() - started:.0f} s =====", flush=True)
        if result.returncode:
            failed.append(name)
    if failed:
        print(f"benchmarks that did not finish: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
