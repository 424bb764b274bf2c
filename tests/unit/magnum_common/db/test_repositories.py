"""The repositories on every backend: scoping, lookups, pagination, compare-and-swap, lease."""

from __future__ import annotations

import datetime

import pytest

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from magnum_common.db.quotas import quotas
from magnum_common.db.services import is_up, magnum_services

ALICE = RequestContext(user_id="alice", project_id="p1")
BOB = RequestContext(user_id="bob", project_id="p2")


def _cluster(ctx: RequestContext, name: str = "c1", workers: int = 2):
    return clusters.create_with_nodegroups(
        ctx,
        {"name": name, "project_id": ctx.project_id, "user_id": ctx.user_id,
         "status": states.CREATE_IN_PROGRESS},
        [{"name": "default-master", "project_id": ctx.project_id, "role": "master",
          "node_count": 1, "is_default": True},
         {"name": "default-worker", "project_id": ctx.project_id, "role": "worker",
          "node_count": workers, "is_default": True}],
    )


def test_create_records_operation_and_nodegroups(db_any):
    cluster = _cluster(ALICE)
    assert cluster.operation == states.OP_CREATE
    groups = clusters.nodegroups_of(ALICE, [cluster.uuid])[cluster.uuid]
    assert sorted(g.name for g in groups) == ["default-master", "default-worker"]
    assert clusters.stats(None) == (1, 3)
    assert clusters.stats(None, "p2") == (0, 0)


def test_other_project_is_not_found_and_admin_all_tenants_sees_it(db_any):
    cluster = _cluster(ALICE)
    with pytest.raises(exception.ClusterNotFound):
        clusters.get(BOB, cluster.uuid)
    assert clusters.get(make_admin_context(), cluster.uuid).name == "c1"
    admin_own = RequestContext(user_id="root", project_id="p9", is_admin=True)
    with pytest.raises(exception.ClusterNotFound):
        clusters.get(admin_own, "c1")


def test_ambiguous_name_is_a_conflict(db_any):
    _cluster(ALICE, "twin")
    _cluster(ALICE, "twin")
    with pytest.raises(exception.Conflict, match="Please use the cluster uuid"):
        clusters.get(ALICE, "twin")


def test_pagination_marker_sort_and_invalid_keys(db_any):
    made = [_cluster(ALICE, f"n{i}") for i in range(5)]
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
    cluster = _cluster(ALICE)
    won = clusters.compare_and_swap(None, cluster.uuid, {"status": states.CREATE_IN_PROGRESS},
                                    {"status": states.CREATE_COMPLETE})
    lost = clusters.compare_and_swap(None, cluster.uuid, {"status": states.CREATE_IN_PROGRESS},
                                     {"status": states.CREATE_FAILED})
    assert (won, lost) == (True, False)
    assert clusters.get_by_uuid(None, cluster.uuid).status == states.CREATE_COMPLETE


def test_lease_is_exclusive_until_it_expires(db_any):
    cluster = _cluster(ALICE)
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
    cluster = _cluster(ALICE)
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


def test_templates_visibility_public_and_hidden(db_any):
    mine = cluster_templates.create(ALICE, {"name": "mine", "project_id": "p1",
                                            "user_id": "alice"})
    shared = cluster_templates.create(BOB, {"name": "shared", "project_id": "p2",
                                            "user_id": "bob", "public": True})
    hidden = cluster_templates.create(BOB, {"name": "hid", "project_id": "p2",
                                            "user_id": "bob", "public": True, "hidden": True})
    assert {t.name for t in cluster_templates.list(ALICE)} == {"mine", "shared"}
    admin = RequestContext(user_id="root", project_id="p9", is_admin=True)
    assert {t.name for t in cluster_templates.list(admin)} == {"shared", "hid"}
    assert cluster_templates.get(ALICE, hidden.uuid).name == "hid"
    with pytest.raises(exception.ClusterTemplateNotFound):
        cluster_templates.get(BOB, mine.uuid)
    assert shared.uuid


def test_nodegroup_lookup_and_unique_name(db_any):
    cluster = _cluster(ALICE)
    worker = nodegroups.get_in_cluster(ALICE, cluster.uuid, "default-worker")
    assert nodegroups.get_in_cluster(ALICE, cluster.uuid, worker.uuid).name == "default-worker"
    with pytest.raises(exception.NodeGroupAlreadyExists):
        nodegroups.create(ALICE, {"name": "default-worker", "cluster_id": cluster.uuid,
                                  "project_id": "p1"})
    with pytest.raises(exception.NodeGroupNotFound):
        nodegroups.get_in_cluster(BOB, cluster.uuid, "default-worker")
    assert nodegroups.destroy_all_of(cluster.uuid) == 2


def test_quota_and_service_heartbeat(db_any):
    quota = quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 3})
    with pytest.raises(exception.QuotaAlreadyExists):
        quotas.create(None, {"project_id": "p1", "resource": "Cluster", "hard_limit": 4})
    assert quotas.update_for(None, "p1", "Cluster", 7).hard_limit == 7
    assert [q.id for q in quotas.list(None, marker=None)] == [quota.id]
    first = magnum_services.heartbeat("host-a", "magnum-conductor")
    second = magnum_services.heartbeat("host-a", "magnum-conductor")
    assert (first.report_count, second.report_count) == (1, 2)
    assert is_up(second)
    assert not is_up(second, now=api.now() + datetime.timedelta(seconds=3600))


def test_queue_promotes_the_oldest_and_fails_what_cannot_start(db_any):
    """A queue nobody moved on is found (the reconciler's query) and started in order; a
    record whose gate the cluster's status fails is failed and its node group put back."""
    cluster = _cluster(ALICE)
    clusters.clear_operation(cluster.uuid, states.OP_CREATE)
    operations.finish(cluster.operation_args["operation_id"], states.OPERATION_SUCCEEDED)
    clusters.compare_and_swap(None, cluster.uuid, {}, {"status": states.UPDATE_FAILED})
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    upgrade = operations.add(ALICE, cluster.uuid, states.OP_UPGRADE,
                             {"previous_nodegroup": {"status": "CREATE_COMPLETE"}},
                             worker.uuid)
    nodegroups.compare_and_swap(None, worker.uuid, {}, {"status": states.UPDATE_IN_PROGRESS})
    resize = operations.add(ALICE, cluster.uuid, states.OP_RESIZE, {"node_count": 3},
                            worker.uuid)
    later = api.now() + datetime.timedelta(seconds=1)
    assert operations.stalled(later) == [cluster.uuid]
    assert operations.queued_targets(cluster.uuid) == {worker.uuid}
    assert operations.promote(cluster.uuid).uuid == resize.uuid
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert (row.operation, row.status) == (states.OP_RESIZE, states.UPDATE_IN_PROGRESS)
    assert row.operation_args["previous_status"] == states.UPDATE_FAILED
    refused = operations.get_in_cluster(None, cluster.uuid, upgrade.uuid)
    assert refused.state == states.OPERATION_FAILED and "UPDATE_FAILED" in \
        refused.result_reason
    assert nodegroups.get_by_uuid(None, worker.uuid).status == "CREATE_COMPLETE"
    assert operations.stalled(later) == [] and operations.promote(cluster.uuid) is None
