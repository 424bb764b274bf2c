"""A job's writes are conditional on its lease: a conductor that lost the cluster writes
nothing; the record's outcome goes in the row's transaction; guarded node-group writes
lose to a newer request (SQLite, real leases)."""

from __future__ import annotations

import datetime

import pytest

from magnum_common import states
from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations as records
from magnum_conductor.engine.job import Job, NodeGroupWrite, Outcome
from magnum_conductor.engine.lease import LeaseLost, LeaseRegistry
from tests.unit.magnum_common.db.support import ALICE, make_cluster


@pytest.fixture
def job(db):
    row = make_cluster(ALICE)
    lease = LeaseRegistry("cond-a").try_acquire(row.uuid)
    with lease:
        yield Job(lease, clusters.get_by_uuid(None, row.uuid))


def _take_over(job: Job) -> None:
    """Another conductor takes the cluster (the lease expired)."""
    past = db_api.now() - datetime.timedelta(seconds=5)
    clusters.compare_and_swap(None, job.uuid, {}, {"lock_expires_at": past})
    assert clusters.acquire_lock(job.uuid, "cond-b", 60)


def test_finish_ends_the_record_with_the_row(job):
    record = job.args["operation_id"]
    job.finish(status=states.CREATE_COMPLETE, status_reason="Stack CREATE completed")
    row = clusters.get_by_uuid(None, job.uuid)
    assert (row.operation, row.operation_args, row.status) == (None, {},
                                                              states.CREATE_COMPLETE)
    done = records.get_by_uuid(None, record)
    assert (done.state, done.result_reason) == (states.OPERATION_SUCCEEDED,
                                                "Stack CREATE completed")


def test_a_lost_lease_writes_nothing(job):
    _take_over(job)
    with pytest.raises(LeaseLost):
        job.save(status=states.CREATE_FAILED)
    assert clusters.get_by_uuid(None, job.uuid).status == states.CREATE_IN_PROGRESS
    worker = nodegroups.get_in_cluster(None, job.uuid, "default-worker")
    with pytest.raises(LeaseLost):
        job.save_nodegroup(worker.uuid, status=states.CREATE_FAILED)
    assert nodegroups.get_by_uuid(None, worker.uuid).status != states.CREATE_FAILED


def test_save_if_and_guarded_node_group_writes(job):
    assert not job.save_if({"status": states.UPDATE_IN_PROGRESS}, status=states.UPDATE_FAILED)
    worker = nodegroups.get_in_cluster(None, job.uuid, "default-worker")
    write = NodeGroupWrite(worker, {"node_count": 5})
    nodegroups.compare_and_swap(None, worker.uuid, {}, {"status": states.UPDATE_IN_PROGRESS})
    # the node group moved since it was read: nothing of the transaction is written
    assert not job.save_if({}, writes=[write], status=states.CREATE_COMPLETE)
    assert clusters.get_by_uuid(None, job.uuid).status == states.CREATE_IN_PROGRESS
    fresh = NodeGroupWrite(nodegroups.get_by_uuid(None, worker.uuid), {"node_count": 5})
    outcome = Outcome(states.OPERATION_FAILED, "boom", job.args["operation_id"])
    assert job.save_if({}, outcome, writes=[fresh], status=states.CREATE_FAILED)
    assert nodegroups.get_by_uuid(None, worker.uuid).node_count == 5
    assert records.get_by_uuid(None, outcome.record).state == states.OPERATION_FAILED


def test_effects_are_journaled_and_only_a_resent_request_counts_as_sent(job):
    from magnum_common import exception

    job.effect_pending("trust", trust_id="t-1")
    record = job.args["operation_id"]
    assert records.effects_of(record)["trust"]["state"] == states.EFFECT_PENDING
    job.effect_done("trust")
    assert records.effects_of(record)["trust"]["state"] == states.EFFECT_DONE
    later = Job(job.lease, job.reload())
    busy = exception.StackBusy()
    assert later.sent_already(busy, "trust") and not later.sent_already(busy, "stack")
    assert not later.sent_already(RuntimeError(), "trust")


def test_destroy_removes_the_row_and_its_groups(job):
    job.destroy()
    assert clusters.count(None) == 0 and nodegroups.count(None) == 0


def test_destroy_ends_the_running_record_in_the_same_transaction(job):
    record = job.args["operation_id"]
    records.start(record)
    job.destroy(Outcome(states.OPERATION_SUCCEEDED, "The cluster is deleted."))
    done = records.get_by_uuid(None, record)
    assert (done.state, done.result_reason) == (states.OPERATION_SUCCEEDED,
                                                "The cluster is deleted.")


def test_a_fenced_delete_removes_nothing_and_ends_nothing(job):
    """A DELETE took the cluster over (the lease freed in its transaction): the old
    holder's end of the delete finds its token gone and leaves rows and record alone."""
    record = job.args["operation_id"]
    records.start(record)
    clusters.compare_and_swap(None, job.uuid, {}, {"lock_owner": None,
                                                   "lock_expires_at": None})
    worker = nodegroups.get_in_cluster(None, job.uuid, "default-worker")
    with pytest.raises(LeaseLost):
        Job(job.lease, job.reload()).destroy_nodegroup(worker.uuid)
    with pytest.raises(LeaseLost):
        job.destroy(Outcome(states.OPERATION_SUCCEEDED, "The cluster is deleted."))
    assert clusters.count(None) == 1 and nodegroups.count(None) == 2
    assert records.get_by_uuid(None, record).state == states.OPERATION_RUNNING


def test_destroy_nodegroup_under_the_lease(job):
    worker = nodegroups.get_in_cluster(None, job.uuid, "default-worker")
    job.destroy_nodegroup(worker.uuid)
    assert [ng.name for ng in nodegroups.list(None, {"cluster_id": job.uuid})] == [
        "default-master"]


def test_progress_is_noted_on_the_server_clock(job):
    record = job.args["operation_id"]
    records.start(record)
    before = db_api.server_now()
    job.progress("stack_find")
    noted = records.get_by_uuid(None, record)
    assert noted.progress == "step stack_find"
    assert before - datetime.timedelta(seconds=1) <= noted.updated_at <= db_api.server_now()
    job.finish(status=states.CREATE_COMPLETE, status_reason="done")
    job.progress("rows_delete")  # no record on the row: the running ones (none left)
    assert records.get_by_uuid(None, record).progress == "step stack_find"
