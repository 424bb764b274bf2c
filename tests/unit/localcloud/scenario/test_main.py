"""The main job's own decisions (the job itself runs against the cloud: tools/main-job):
its options, steps run in order up to the first failure (which cleans up what the flow
made and fails the flow, never the job; an interrupt cleans up and ends it), and the local
cloud's memory rows read from ``localcloud status``."""

from __future__ import annotations

import io

import pytest

from localcloud.scenario import main
from localcloud.scenario.narrate import Narrator


def test_the_options_and_the_database_from_the_environment(monkeypatch):
    monkeypatch.delenv("MAGNUM_DB", raising=False)
    args = main.parse([])
    assert (args.db, args.keep, args.no_faults, args.faults_only) == ("sqlite", False, False,
                                                                      False)
    monkeypatch.setenv("MAGNUM_DB", "postgresql")
    assert main.parse(["--keep"]).db == "postgresql"
    with pytest.raises(SystemExit):
        main.parse(["--db", "oracle"])


def _narrator() -> Narrator:
    return Narrator(out=io.StringIO())


def test_steps_run_in_order_until_the_first_failure_which_cleans_up():
    ran, cleaned = [], []

    def fail():
        raise RuntimeError("quota exceeded")

    n = _narrator()
    steps = [("one", lambda: ran.append(1)), ("two", fail), ("three", lambda: ran.append(3))]
    assert not main.run_steps(n, steps, on_failure=lambda: cleaned.append(True))
    assert ran == [1] and cleaned == [True]
    assert [(s.name, s.ok) for s in n.steps] == [("one", True), ("two", False)]
    assert "skipping the rest of this flow after: RuntimeError" in n.out.getvalue()
    assert main.run_steps(_narrator(), [("one", lambda: ran.append(4))])
    assert ran == [1, 4]


def test_an_interrupt_cleans_up_and_ends_the_job():
    cleaned = []

    def interrupted():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        main.run_steps(_narrator(), [("wait", interrupted)],
                       on_failure=lambda: cleaned.append(True))
    assert cleaned == [True]


def test_the_clouds_memory_rows_come_from_its_status(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))  # a cloud that never ran
    rows = main.cloud_memory()
    assert ("local cloud", "keystone", None, None) in rows
    assert {who for who, _, _, _ in rows} == {"local cloud"}
