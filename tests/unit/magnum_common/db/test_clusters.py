"""The cluster repository on every backend: scoping, lookups, pagination, compare-and-swap,
lease, recorded operations."""

from __future__ import annotations

import datetime

import pytest

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations
from tests.unit.magnum_common.db.support import ALICE, BOB, make_cluster


def test_create_records_operation_and_nodegroups(db_any):
    cluster = make_cluster(ALICE)
    assert cluster.operation == states.OP_CREATE
    groups = clusters.nodegroups_of(ALICE, [cluster.uuid])[cluster.uuid]
    assert sorted(g.name for g in groups) == ["default-master", "default-worker"]
    assert clusters.stats(None) == (1, 3)
    assert clusters.stats(None, "p2") == (0, 0)


def test_other_project_is_not_found_and_admin_all_tenants_sees_it(db_any):
    cluster = make_cluster(ALICE)
    with pytest.raises(exception.ClusterNotFound):
        clusters.get(BOB, cluster.uuid)
    assert clusters.get(make_admin_context(), cluster.uuid).name == "c1"
    admin_own = RequestContext(user_id="root", project_id="p9", is_admin=True)
    with pytest.raises(exception.ClusterNotFound):
        clusters.get(admin_own, "c1")


def test_ambiguous_name_is_a_conflict(db_any):
    make_cluster(ALICE, "twin")
    make_cluster(ALICE, "twin")
    with pytest.raises(exception.Conflict, match="Please use the cluster uuid"):
        clusters.get(ALICE, "twin")


def test_pagination_marker_sort_and_invalid_keys(db_any):
    made = [make_cluster(ALICE, f"n{i}") for i in range(5)]
    page = clusters.list(ALICE, limit=2)
    assert [c.name for c in page] == ["n0", "n1"]
    page = clusters.list(ALICE, limit=2, marker=page[-1].uuid)
    assert [c.name for c in page] == ["n2", "n3"]
    desc = clusters.list(ALICE, sort_key="name", sort_dir="desc")
    assert [c.name for c in desc] == ["n4", "n3", "n2", "n1", "n0"]
    with pytest.raises(exception.InvalidParameterValue, match="invalid field for sorting"):
        clusters.list(ALICE, sort_key="bogus")
    with pytest.raises(exception.InvalidParameterValue, match="Invalid sort direction"):
        clusters.list(ALICE, sort_dir="up")
    with pytest.raises(exception.ClusterNotFound):
        clusters.list(ALICE, marker="6b0bbd5a-4bd1-4bb4-9a29-1f1fb44c1e1c")
    assert len(clusters.list(ALICE, filters={"status": [states.CREATE_IN_PROGRESS]})) == 5
    assert made


def test_compare_and_swap_only_one_winner(db_any):
    cluster = make_cluster(ALICE)
    won = clusters.compare_and_swap(None, cluster.uuid, {"status": states.CREATE_IN_PROGRESS},
                                    {"status": states.CREATE_COMPLETE})
    lost = clusters.compare_and_swap(None, cluster.uuid, {"status": states.CREATE_IN_PROGRESS},
                                     {"status": states.CREATE_FAILED})
    assert (won, lost) == (True, False)
    assert clusters.get_by_uuid(None, cluster.uuid).status == states.CREATE_COMPLETE


def test_lease_is_exclusive_until_it_expires(db_any):
    cluster = make_cluster(ALICE)
    assert clusters.acquire_lock(cluster.uuid, "cond-a", 60)
    assert not clusters.acquire_lock(cluster.uuid, "cond-b", 60)
    assert clusters.renew_lock(cluster.uuid, "cond-a", 60)
    assert not clusters.renew_lock(cluster.uuid, "cond-b", 60)
    # Expire the lease as if cond-a had died.
    past = api.now() - datetime.timedelta(seconds=5)
    clusters.compare_and_swap(None, cluster.uuid, {}, {"lock_expires_at": past})
    assert clusters.acquire_lock(cluster.uuid, "cond-b", 60)
    assert not clusters.renew_lock(cluster.uuid, "cond-a", 60)
    assert clusters.release_lock(cluster.uuid, "cond-b")
    assert clusters.get_by_uuid(None, cluster.uuid).lock_owner is None


def test_one_pending_operation_at_a_time_and_recovery_query(db_any):
    cluster = make_cluster(ALICE)
    assert not clusters.record_operation(ALICE, cluster.uuid, states.OP_DELETE)
    assert clusters.clear_operation(cluster.uuid, states.OP_CREATE)
    # the create's record is open until its outcome is written
    assert not clusters.record_operation(ALICE, cluster.uuid, states.OP_DELETE)
    assert operations.finish(cluster.operation_args["operation_id"],
                             states.OPERATION_SUCCEEDED)
    assert clusters.record_operation(ALICE, cluster.uuid, states.OP_DELETE, {"x": 1},
                                     {"status": states.DELETE_IN_PROGRESS})
    assert not clusters.record_operation(ALICE, cluster.uuid, states.OP_UPDATE)
    later = api.now() + datetime.timedelta(seconds=1)
    pending = clusters.pending_operations(later)
    assert [(c.uuid, c.operation, c.operation_args) for c in pending] == [
        (cluster.uuid, states.OP_DELETE, {"x": 1})]
    clusters.acquire_lock(cluster.uuid, "cond-a", 60)
    assert clusters.pending_operations(later) == []
