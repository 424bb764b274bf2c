"""Memory of a pre-forking service, read from /proc: PSS (proportional set size) counts a
page shared by n processes as 1/n of it in each, so the PSS of a master and its workers add
up to what they cost the machine together (RSS counts every shared page in full in each)."""

from __future__ import annotations

import os


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry))
        except (OSError, ValueError, IndexError):
            continue
    return sorted(found)


def memory_mb(pid: int) -> dict[str, float]:
    """``{"pss": MB, "rss": MB}`` of one process (smaps_rollup)."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if name in ("Pss", "Rss"):
                values[name.lower()] = int(rest.split()[0]) / 1024
    return values
