"""The cloud's services as processes: started once per command, environment and watched
files (a change restarts it), found again by pid and start time only, stopped as a group."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from localcloud import layout, procs

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


@pytest.fixture
def reaper():
    """Reap our exited children at once, as the launcher's parent (init) would: the
    services are this test's children, and a zombie still counts as a member of its group."""
    def reap(*_):
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass

    previous = signal.signal(signal.SIGCHLD, reap)
    yield
    signal.signal(signal.SIGCHLD, previous)


def test_started_once_restarted_on_change_and_stopped(tmp_path, monkeypatch, reaper):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path / "state"))
    lay = layout.Layout(str(tmp_path / "state"))
    lay.mkdirs()
    conf = tmp_path / "svc.conf"
    conf.write_text("a = 1\n")
    pid, started = procs.start(lay, "svc", SLEEPER, watch=[str(conf)])
    try:
        assert started and procs.running_pid(lay, "svc") == pid
        assert procs.start(lay, "svc", SLEEPER, watch=[str(conf)]) == (pid, False)
        conf.write_text("a = 2\n")
        again, restarted = procs.start(lay, "svc", SLEEPER, watch=[str(conf)])
        assert restarted and again != pid and procs.running_pid(lay, "svc") == again
        assert "starting: " in open(lay.log("svc")).read()
    finally:
        assert procs.stop(lay, "svc")
    assert procs.running_pid(lay, "svc") is None and not procs.stop(lay, "svc")


def test_a_recycled_pid_is_not_taken_for_ours(tmp_path):
    lay = layout.Layout(str(tmp_path))
    lay.mkdirs()
    with open(lay.pidfile("svc"), "w") as f:
        f.write(f"{os.getpid()} 1 fp\n")  # this process, with another start time
    assert procs.running_pid(lay, "svc") is None
    with open(lay.pidfile("svc"), "w") as f:
        f.write(f"{os.getpid()} {procs._start_time(os.getpid())} fp\n")
    assert procs.running_pid(lay, "svc") == os.getpid()
    assert procs.fingerprint(["a"], {"X": "1"}, ()) != procs.fingerprint(["a"], {"X": "2"},
                                                                          ())
