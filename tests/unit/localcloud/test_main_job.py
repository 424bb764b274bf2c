"""main-job's command line and its timed setup steps (nothing of the cloud is touched)."""

from __future__ import annotations

import sys

import pytest

from localcloud import main_job


def test_the_command_line(monkeypatch):
    monkeypatch.delenv("MAGNUM_DB", raising=False)
    args = main_job.parse([])
    assert (args.db, args.keep, args.tier, args.no_faults) == ("sqlite", False, None, False)
    monkeypatch.setenv("MAGNUM_DB", "postgresql")
    assert main_job.parse(["--tier", "full", "--keep"]).db == "postgresql"
    with pytest.raises(SystemExit):
        main_job.parse(["--db", "oracle"])


def test_a_timed_step_reports_its_time_and_a_failure_ends_the_job(capsys):
    title, seconds = main_job.timed("say hello", [sys.executable, "-c", "print('hello')"])
    assert title == "say hello" and seconds >= 0
    assert "[-] say hello" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="failed \\(exit 3\\)"):
        main_job.timed("fail", [sys.executable, "-c", "raise SystemExit(3)"])
