"""What an operation's failure says, and the record outcomes the engine writes: from the
stack's status, and a refused request put back as it was (SQLite, real leases)."""

from __future__ import annotations

import socket

import pytest
import requests

from magnum_common import exception, outbound, states
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations as records
from magnum_conductor.engine import operations
from magnum_conductor.engine.job import Job, Outcome
from magnum_conductor.engine.lease import LeaseRegistry
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def _refused_request() -> requests.ConnectionError:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    try:
        outbound.tracked("Barbican").post(f"http://127.0.0.1:{port}/v1/secrets", timeout=2)
    except requests.ConnectionError as exc:
        return exc
    raise AssertionError("nothing should listen there")


def test_the_reason_names_the_cause_and_the_service_that_did_not_answer():
    outbound.forget()
    try:
        raise exception.TrusteeOrTrustToClusterFailed(cluster_id="c") from ValueError(
            "role member is missing")
    except exception.MagnumException as exc:
        assert operations._reason(exc).endswith(": role member is missing")
    cause = _refused_request()
    try:
        raise RuntimeError("storing the CA failed") from cause
    except RuntimeError as exc:
        reason, no_answer = operations._reason(exc), operations._no_answer(exc)
    assert reason.startswith("Barbican did not answer (POST http://127.0.0.1:")
    assert "connection failed): storing the CA failed" in reason
    assert no_answer and not operations._no_answer(ValueError())
    assert len(operations._reason(RuntimeError("x" * 5000))) == 4003
    outbound.forget()


def test_record_outcomes_follow_the_stack_status():
    assert operations.record_state(states.UPDATE_FAILED) == states.OPERATION_FAILED
    assert operations.record_state(states.ROLLBACK_COMPLETE) == states.OPERATION_SUCCEEDED


@pytest.fixture
def job(db):
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, {"status": states.UPDATE_IN_PROGRESS,
                                     "status_reason": "Resizing the cluster.",
                                     "operation_args": {
                                         **row.operation_args,
                                         "previous_status": states.CREATE_COMPLETE,
                                         "previous_reason": "Stack CREATE completed",
                                         "previous_updated_at": "2024-01-02T03:04:05"}})
    lease = LeaseRegistry("cond-a").try_acquire(row.uuid)
    with lease:
        yield Job(lease, clusters.get_by_uuid(None, row.uuid))


def test_a_refused_request_puts_the_row_back_as_it_was(job):
    record = job.args["operation_id"]
    operations.revert(job, Outcome(states.OPERATION_FAILED, "not possible now", record))
    row = clusters.get_by_uuid(None, job.uuid)
    assert (row.status, row.status_reason, row.operation) == (
        states.CREATE_COMPLETE, "Stack CREATE completed", None)
    assert row.updated_at.isoformat() == "2024-01-02T03:04:05"
    assert records.get_by_uuid(None, record).state == states.OPERATION_FAILED
