"""The executor works on a cluster only under its lease: a taken cluster is left alone (or
refused as busy when the caller wants to know), a cluster gone or without a recorded
operation is nothing to do, and the lease is released afterwards."""

from __future__ import annotations

import pytest

from magnum_common import exception
from magnum_common.db.clusters import clusters
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.lease import LeaseRegistry


def _cluster() -> str:
    return clusters.create(None, {"name": "c", "project_id": "p",
                                  "status": "CREATE_COMPLETE"}).uuid


def test_work_runs_under_the_lease_which_is_released_after(db):
    uuid = _cluster()
    seen = []

    result = Executor("a").with_lease(uuid, lambda job: seen.append(
        (job.uuid, clusters.get_by_uuid(None, uuid).lock_owner.split("/")[0])) or "done")

    assert result == "done" and seen == [(uuid, "a")]
    assert clusters.get_by_uuid(None, uuid).lock_owner is None


def test_a_cluster_leased_elsewhere_is_left_alone_or_refused_as_busy(db):
    uuid = _cluster()
    held = LeaseRegistry("b").try_acquire(uuid)
    clusters.record_operation(None, uuid, "cluster_update", {"node_count": 2})
    executor = Executor("a")

    assert executor.with_lease(uuid, lambda job: pytest.fail("ran without the lease")) is None
    assert executor.run_recorded(uuid, wait=0) is None
    with pytest.raises(exception.ClusterBusy):
        executor.run_recorded(uuid, wait=0, raise_errors=True)
    held.release()
    assert clusters.get_by_uuid(None, uuid).operation == "cluster_update"  # still recorded


def test_a_gone_cluster_or_one_without_an_operation_is_nothing_to_do(db):
    executor = Executor("a")
    uuid = _cluster()

    assert executor.run_recorded(uuid, wait=0, raise_errors=True) is None
    assert executor.with_lease("00000000-0000-0000-0000-000000000000",
                               lambda job: pytest.fail("ran for no cluster")) is None
    assert clusters.get_by_uuid(None, uuid).lock_owner is None
