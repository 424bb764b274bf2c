"""The main job's processes: started in a session of their own with the log appended,
measured as a group, stopped by their group id: the children too, a stubborn one killed."""

from __future__ import annotations

import sys
import time

from localcloud.scenario import procs

#: A parent that starts a child in its own group, then ignores SIGTERM if asked to.
SCRIPT = """
import signal, subprocess, sys, time
if sys.argv[1] == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("child", child.pid, flush=True)
time.sleep(600)
"""


def _child(proc: procs.Proc) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in proc.log.read_text().splitlines():
            if line.startswith("child "):
                return int(line.split()[1])
        time.sleep(0.05)
    raise AssertionError(proc.log.read_text())


def test_a_group_is_measured_and_stopped_whole(tmp_path):
    proc = procs.start("demo", [sys.executable, "-c", SCRIPT, "polite"], tmp_path / "l.log")
    child = _child(proc)
    try:
        rss, _, count = procs.memory_mib(proc.pid)
        assert count == 2 and rss > 1
        assert procs._pgid(child) == proc.pid and proc.alive()
    finally:
        procs.stop(proc.pid, timeout=10)
    assert not proc.alive() and not procs._group_alive(proc.pid)
    procs.stop(proc.pid)  # stopping what is gone is fine


def test_a_process_ignoring_sigterm_is_killed(tmp_path):
    proc = procs.start("stubborn", [sys.executable, "-c", SCRIPT, "stubborn"],
                       tmp_path / "s.log")
    _child(proc)
    procs.stop(proc.pid, timeout=0.5)
    assert not procs._group_alive(proc.pid)
    assert (tmp_path / "s.log").read_text().startswith("child ")
