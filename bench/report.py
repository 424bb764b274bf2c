"""One line per figure, for ``bench/run_all.py`` to gather: ``RESULT {"metric": ...}``.

Each benchmark prints its own table as well; these lines are what run_all puts next to the
targets of the issues at the end of a run. Printed, never asserted.
"""

from __future__ import annotations

import json

PREFIX = "RESULT "


def result(metric: str, value: float | None, unit: str, target: float | None = None,
           higher_is_better: bool = False, note: str = "") -> None:
    """Print one figure; ``target`` None: printed without a verdict."""
    print(PREFIX + json.dumps({"metric": metric, "value": value, "unit": unit,
                               "target": target, "higher": higher_is_better,
                               "note": note}), flush=True)


def parse(line: str) -> dict | None:
    if not line.startswith(PREFIX):
        return None
    try:
        return json.loads(line[len(PREFIX):])
    except ValueError:
        return None


def verdict(row: dict) -> str:
    value, target = row.get("value"), row.get("target")
    if value is None:
        return "not measured"
    if target is None:
        return ""
    met = value >= target if row.get("higher") else value <= target
    return "ok" if met else "MISSED"


def target_text(row: dict) -> str:
    if row.get("target") is None:
        return "-"
    return f"{'>=' if row.get('higher') else '<='} {row['target']:g} {row['unit']}"
