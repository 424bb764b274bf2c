"""The processes we start: each in a session of its own, logged to a file, stopped by id.

A service (gunicorn master and workers, a conductor and its worker processes) is one
process group; stopping it signals that group only, by the id recorded when it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from localcloud.pids import alive


@dataclass
class Proc:
    name: str
    pid: int
    log: Path

    def alive(self) -> bool:
        return alive(self.pid)


def start(name: str, argv: list[str], log: Path, env: dict[str, str] | None = None) -> Proc:
    """Start ``argv`` in a new session, stdout and stderr appended to ``log``."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        child = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True,
                                 env=env or os.environ.copy())
    return Proc(name=name, pid=child.pid, log=log)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def stop(pid: int, timeout: float = 20.0) -> None:
    """SIGTERM the process group led by ``pid``; SIGKILL it after ``timeout`` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            _reap(pid)
            return
        deadline = time.monotonic() + (timeout if sig == signal.SIGTERM else 5)
        while time.monotonic() < deadline:
            _reap(pid)
            if not _group_alive(pid):
                return
            time.sleep(0.2)


def _group_alive(pgid: int) -> bool:
    return any(_pgid(pid) == pgid and alive(pid) for pid in _all_pids())


def _all_pids() -> list[int]:
    return [int(d) for d in os.listdir("/proc") if d.isdigit()]


def _pgid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[2])
    except (OSError, ValueError, IndexError):
        return None


def _kib(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def memory_mib(pgid: int) -> tuple[float, float, int]:
    """(RSS, PSS, processes) of a process group, in MiB."""
    rss = pss = count = 0
    for pid in _all_pids():
        if _pgid(pid) != pgid or not alive(pid):
            continue
        count += 1
        rss += _kib(f"/proc/{pid}/status", "VmRSS")
        pss += _kib(f"/proc/{pid}/smaps_rollup", "Pss")
    return rss / 1024, pss / 1024, count
