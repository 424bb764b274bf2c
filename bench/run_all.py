"""Run every benchmark in turn and print their numbers (``tox -e bench``).

Each benchmark is its own script (see its docstring for options and targets); this runner
sequences them, shows their output as it comes, and ends with one table of every figure
next to its target (the ``RESULT`` lines of :mod:`report`). Numbers are printed, never
asserted. Pass benchmark names to run a subset, e.g. ``api conductor_sync``.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import report  # noqa: E402

ORDER = ("api", "conductor_create", "conductor_sync", "cluster_credentials")


def run(name: str) -> tuple[int, list[dict]]:
    """Run one benchmark, echoing its output; its exit code and RESULT rows."""
    script = HERE / f"bench_{name}.py"
    rows = []
    proc = subprocess.Popen([sys.executable, str(script)], cwd=HERE.parent,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            bufsize=1)
    assert proc.stdout is not None
    for line in proc.stdout:
        row = report.parse(line)
        if row is not None:
            rows.append(row)
        else:
            print(line, end="", flush=True)
    return proc.wait(), rows


def table(rows: list[dict]) -> str:
    lines = [f"{'figure':66s} {'value':>12s}  {'target':16s} verdict", "-" * 106]
    for row in rows:
        value = row.get("value")
        shown = "-" if value is None else f"{value:g} {row['unit']}"
        note = f"  ({row['note']})" if row.get("note") else ""
        lines.append(f"{row['metric'][:66]:66s} {shown:>12s}  {report.target_text(row):16s} "
                     f"{report.verdict(row)}{note}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    names = argv or list(ORDER)
    unknown = [n for n in names if not (HERE / f"bench_{n}.py").exists()]
    if unknown:
        print(f"unknown benchmark {unknown[0]!r}; known: {', '.join(ORDER)}", file=sys.stderr)
        return 2
    failed, rows = [], []
    for name in names:
        print(f"\n===== bench_{name}.py =====", flush=True)
        started = time.monotonic()
        code, found = run(name)
        rows += found
        print(f"===== bench_{name}.py: exit {code} after {time.monotonic() - started:.0f} s "
              f"=====", flush=True)
        if code:
            failed.append(name)
    print("\n" + table(rows))
    if failed:
        print(f"benchmarks that did not finish: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
