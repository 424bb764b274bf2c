"""The main job's narration: each step timed and reported, a failing step named with its
error and re-raised, milestones kept at their first time."""

from __future__ import annotations

import io

import pytest

from localcloud.scenario.narrate import Narrator


def test_steps_milestones_and_the_report():
    out = io.StringIO()
    narrator = Narrator(out=out)
    with narrator.step("bring the cloud up"):
        narrator.command("tools/localcloud up")
    first = narrator.milestone("cloud up")
    assert narrator.milestone("cloud up") == first
    with pytest.raises(RuntimeError), narrator.step("create a cluster"):
        raise RuntimeError("quota exceeded")
    text = out.getvalue()
    assert "[1] bring the cloud up\n   $ tools/localcloud up\n   done in" in text
    assert "[2] create a cluster" in text and "FAILED after" in text
    assert [(s.name, s.ok) for s in narrator.steps] == [("bring the cloud up", True),
                                                       ("create a cluster", False)]
    assert narrator.steps[1].detail == "RuntimeError: quota exceeded"
    report = narrator.report([("local cloud", "keystone", 100.0, 80.0),
                              ("magnum", "magnum-api", 50.5, None),
                              ("local cloud", "heat-engine", None, None)])
    assert "cloud up: " in report and " FAILED" in report and " ok" in report
    totals = [line.split() for line in report.splitlines() if "(total)" in line]
    assert totals == [["local", "cloud", "(total)", "100.0"], ["magnum", "(total)", "50.5"]]
