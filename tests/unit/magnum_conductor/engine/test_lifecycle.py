"""The lifecycle log of a real job (cluster row, lease, operation record on SQLite): one
INFO line per step, one WARNING naming the failed step, and stack requests journaled."""

from __future__ import annotations

import logging

import pytest

from magnum_common import exception, states
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations as records
from magnum_conductor.engine import lifecycle
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.lease import LeaseRegistry
from tests.unit.magnum_common.db.support import ALICE, make_cluster


@pytest.fixture
def job(db, caplog):
    caplog.set_level(logging.INFO, logger="magnum_conductor.lifecycle")
    row = make_cluster(ALICE)
    lease = LeaseRegistry("cond-a").try_acquire(row.uuid)
    with lease:
        yield Job(lease, clusters.get_by_uuid(None, row.uuid))


def _lines(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records
            if r.name == "magnum_conductor.lifecycle"]


def test_each_step_and_the_operation_end_with_one_line(job, caplog):
    with lifecycle.operation(job):
        with lifecycle.step(job, "trust"):
            pass
        with lifecycle.step(job, "certificates") as step:
            step.outcome = "present"
    lines = _lines(caplog)
    assert [level for level, _ in lines] == ["INFO"] * 3
    assert lines[0][1].startswith(f"operation=cluster_create cluster={job.uuid} "
                                  "nodegroup=- step=trust outcome=ok seconds=")
    assert "step=certificates outcome=present" in lines[1][1]
    assert "step=operation outcome=ok" in lines[2][1] and "request_id=" in lines[2][1]


def test_a_failed_step_is_one_warning_with_its_reason_on_one_line(job, caplog):
    with pytest.raises(RuntimeError), lifecycle.operation(job):
        with lifecycle.step(job, "trust"):
            pass
        with lifecycle.step(job, "stack", nodegroup="ng-1"):
            raise RuntimeError("Heat said\n  no")
    lines = _lines(caplog)
    assert [level for level, _ in lines] == ["INFO", "WARNING"]
    assert "nodegroup=ng-1 step=stack outcome=failed" in lines[1][1]
    assert lines[1][1].endswith("reason=Heat said no")


def test_a_step_outside_an_operation_writes_its_own_warning(job, caplog):
    with pytest.raises(ValueError), lifecycle.step(job, "sweep", operation="cleanup"):
        raise ValueError()
    ((level, line),) = _lines(caplog)
    assert level == "WARNING" and line.startswith("operation=cleanup ")
    assert line.endswith("reason=ValueError")


def test_a_stack_request_is_journaled_and_a_busy_answer_to_a_resend_is_ours(job, caplog):
    record = job.args["operation_id"]
    with lifecycle.stack_request(job, "stack_create"):
        pass
    assert records.effects_of(record)["stack_create"]["state"] == states.EFFECT_DONE
    resent = Job(job.lease, job.cluster)  # a later run of the same operation
    with lifecycle.stack_request(resent, "stack_create"):
        raise exception.StackBusy(stack="s", status="CREATE_IN_PROGRESS")
    assert "step=stack_create outcome=sent-already" in _lines(caplog)[-1][1]
    with pytest.raises(exception.StackBusy), lifecycle.stack_request(resent, "stack_update"):
        raise exception.StackBusy(stack="s", status="UPDATE_IN_PROGRESS")


def test_each_step_is_noted_as_the_records_progress(job):
    record = job.args["operation_id"]
    records.start(record)
    with lifecycle.step(job, "trust"):
        assert records.get_by_uuid(None, record).progress == "step trust"
    with lifecycle.step(job, "certificates"):
        pass
    assert records.get_by_uuid(None, record).progress == "step certificates"
