"""Whether a pid still runs: this process does, a reaped child and a zombie do not."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from localcloud import pids


def test_alive_running_reaped_and_zombie():
    assert pids.alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    deadline = time.monotonic() + 30
    # exited but not reaped: a zombie counts as gone
    while pids.alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pids.alive(child.pid)
    child.wait()
    assert not pids.alive(child.pid)
    assert pids.alive(1)  # another user's process (init) runs too
