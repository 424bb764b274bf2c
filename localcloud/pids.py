"""Whether a process still runs, by pid: the one test the guard and the harness share.

Standard library only (the launchers import it before a virtualenv exists).
"""

from __future__ import annotations

import os


def alive(pid: int) -> bool:
    """True while ``pid`` runs, also when it belongs to another user; a zombie (exited,
    not yet reaped) counts as gone."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
