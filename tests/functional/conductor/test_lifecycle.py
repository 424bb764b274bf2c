"""Cluster lifecycle through a real RPC server (RabbitMQ), DB and the Keystone/Heat stand-in."""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
import sqlalchemy.orm
import standin_driver
import support

from magnum_common import crypto, states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from magnum_common.db.x509keypairs import x509keypairs


def test_create_resize_delete(conductor, standin):
    api = ConductorAPI()
    ctx = support.requester()
    template = support.make_template()
    cluster = support.record_cluster(ctx, template, node_count=1)
    api.cluster_create(ctx, cluster.uuid)

    # the lease is released after the status is written (and notified)
    row = support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
        == states.CREATE_COMPLETE and c.lock_owner is None and c, what="CREATE_COMPLETE")
    assert row.operation is None
    assert row.api_address == "https://127.24.4.10:6443"
    assert row.trust_id and row.trustee_password and "secret" not in row.trustee_password
    assert all(getattr(row, f) for f in ("ca_cert_ref", "magnum_cert_ref",
                                         "etcd_ca_cert_ref", "front_proxy_ca_cert_ref"))
    ngs = {ng.name: ng for ng in nodegroups.list(None, {"cluster_id": cluster.uuid})}
    assert ngs["default-worker"].stack_id == row.stack_id
    assert ngs["default-worker"].node_addresses == ["127.24.4.100"]
    assert len(standin.stacks_named(cluster.name)) == 1
    [create] = operations.list_in_cluster(None, cluster.uuid)
    assert (create.kind, create.state) == (states.OP_CREATE, states.OPERATION_SUCCEEDED)
    assert create.accepted_at <= create.started_at <= create.finished_at
    # the token the conductor acted with is in the record sealed, never in clear
    assert create.arguments["credentials"].startswith(crypto.TOKEN_PREFIX)
    assert ctx.auth_token not in json.dumps(create.arguments)

    worker = ngs["default-worker"]
    resize = api.cluster_resize(ctx, cluster.uuid, 3, worker.uuid)
    # Moved before the call returned: the caller's first read sees the resize.
    assert support.cluster_status(cluster.uuid) == states.UPDATE_IN_PROGRESS
    assert nodegroups.get_by_uuid(None, worker.uuid).node_count == 3
    row = support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
        == states.UPDATE_COMPLETE and c, what="UPDATE_COMPLETE")
    assert nodegroups.get_by_uuid(None, worker.uuid).node_count == 3
    stack = standin.stacks_named(cluster.name)[0]
    assert stack["parameters"]["number_of_minions"] == "3"
    record = operations.get_in_cluster(None, cluster.uuid, resize)
    assert (record.kind, record.state, record.nodegroup_id) == (
        states.OP_RESIZE, states.OPERATION_SUCCEEDED, worker.uuid)
    assert record.user_id == ctx.user_id and record.arguments["node_count"] == 3

    delete = api.cluster_delete(ctx, cluster.uuid)
    assert support.cluster_status(cluster.uuid) == states.DELETE_IN_PROGRESS
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE",
                     what="cluster row destroyed")
    assert operations.get_in_cluster(None, cluster.uuid, delete).state == \
        states.OPERATION_SUCCEEDED
    assert nodegroups.list(None, {"cluster_id": cluster.uuid}) == []
    state = standin.state()
    assert state["trusts"] == [] and state["users"] == []
    assert x509keypairs.list(None) == []


def test_failed_stack_reason_names_resource(conductor, standin):
    standin.control(fail_stacks={"CREATE": "*"}, create_seconds=0.5)
    api = ConductorAPI()
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    api.cluster_create(ctx, cluster.uuid)
    row = support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
        == states.CREATE_FAILED and c, what="CREATE_FAILED")
    assert row.status_reason == (
        "default-master, default-worker failed: Resource kube-master (OS::Nova::Server) "
        "CREATE_FAILED: ResourceInError: No valid host was found")
    [record] = operations.list_in_cluster(None, cluster.uuid)
    assert (record.state, record.result_reason) == (states.OPERATION_FAILED,
                                                    row.status_reason)


def _ended_while_running(session: Any) -> list[Any]:
    """Clusters that this transaction leaves out of progress, with no operation recorded on
    the row, while one of their records still says running: what a reader must never see."""
    cluster, record = models.Cluster, models.ClusterOperation
    return session.execute(
        sa.select(cluster.uuid, cluster.status, record.kind)
        .join(record, record.cluster_id == cluster.uuid)
        .where(record.state == states.OPERATION_RUNNING, cluster.operation.is_(None),
               ~cluster.status.like("%\\_IN\\_PROGRESS", escape="\\"))).all()


@pytest.fixture
def commit_checks():
    """Check, before every write transaction of this process commits, that it leaves no
    ended cluster with a running record (the conductor runs in this process)."""
    seen: dict[str, Any] = {"commits": 0, "lies": []}

    def check(session: Any) -> None:
        if session.info.get(db_api._WRITER_CONNECTED):
            seen["commits"] += 1
            seen["lies"] += _ended_while_running(session)

    sa.event.listen(sa.orm.Session, "before_commit", check)
    yield seen
    sa.event.remove(sa.orm.Session, "before_commit", check)


def test_no_commit_shows_an_ended_cluster_whose_record_runs(conductor, standin,
                                                            commit_checks):
    """The status write out of progress and the record's outcome are one transaction, on
    every path: the sync's verdict (failed and complete), a resize, a PATCH that changes
    nothing, a refused request (issue 12: CREATE_FAILED was read with the record running)."""
    api = ConductorAPI()
    ctx = support.requester()
    template = support.make_template()
    standin.control(fail_stacks={"CREATE": "*"}, create_seconds=0.3)
    failing = [support.record_cluster(ctx, template) for _ in range(3)]
    for cluster in failing:
        api.cluster_create(ctx, cluster.uuid)
    for cluster in failing:
        support.wait_for(lambda c=cluster: support.cluster_status(c.uuid)
                         == states.CREATE_FAILED, what="CREATE_FAILED")
    standin.control(fail_stacks={}, update_seconds=0.3)
    cluster = support.record_cluster(ctx, template)
    api.cluster_create(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.CREATE_COMPLETE,
                     what="CREATE_COMPLETE")
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    api.cluster_resize(ctx, cluster.uuid, 2, worker.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.UPDATE_COMPLETE,
                     what="UPDATE_COMPLETE")
    api.cluster_update(ctx, cluster.uuid, 2)
    for c in [*failing, cluster]:
        support.wait_for(lambda c=c: all(r.state not in states.OPERATION_OPEN
                                         for r in operations.list_in_cluster(None, c.uuid)),
                         what="every record ended")
    outcomes = sorted(r.state for c in [*failing, cluster]
                      for r in operations.list_in_cluster(None, c.uuid))
    assert outcomes == [states.OPERATION_FAILED] * 3 + [states.OPERATION_SUCCEEDED] * 3
    assert commit_checks["commits"] > 20
    assert commit_checks["lies"] == []


def test_sync_never_overwrites_a_node_group_a_newer_request_moved(conductor, standin,
                                                                 monkeypatch):
    """Point 5 for node groups: a resize queued while the sync reads the outputs of the
    previous one (between its snapshot and its write) keeps its node group as the API
    moved it; the sync's write from the older snapshot is refused whole, and the queued
    resize then runs."""
    api = ConductorAPI()
    ctx = support.requester()
    standin.control(create_seconds=0.3, update_seconds=0.3)
    cluster = support.record_cluster(ctx, support.make_template())
    api.cluster_create(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.CREATE_COMPLETE,
                     what="CREATE_COMPLETE")
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    queued: list[str] = []
    read_outputs = standin_driver.StandinDriver.read_outputs

    def queue_a_resize_first(self, res, view, stack_id):
        if not queued and view.cluster.status == states.UPDATE_IN_PROGRESS:
            queued.append(api.cluster_resize(ctx, cluster.uuid, 3, worker.uuid))
        return read_outputs(self, res, view, stack_id)

    monkeypatch.setattr(standin_driver.StandinDriver, "read_outputs", queue_a_resize_first)
    moved: list[Any] = []

    def check(session: Any) -> None:
        if queued and session.info.get(db_api._WRITER_CONNECTED):
            row = session.execute(sa.select(models.NodeGroup.status).where(
                models.NodeGroup.uuid == worker.uuid)).scalar_one()
            pending = session.execute(sa.select(models.ClusterOperation.state).where(
                models.ClusterOperation.uuid == queued[0])).scalar_one()
            if pending == states.OPERATION_PENDING and row != states.UPDATE_IN_PROGRESS:
                moved.append(row)

    sa.event.listen(sa.orm.Session, "before_commit", check)
    try:
        first = api.cluster_resize(ctx, cluster.uuid, 2, worker.uuid)
        support.wait_for(lambda: queued and operations.get_in_cluster(
            None, cluster.uuid, queued[0]).state == states.OPERATION_SUCCEEDED,
            what="the queued resize done")
    finally:
        sa.event.remove(sa.orm.Session, "before_commit", check)
    assert moved == []
    assert operations.get_in_cluster(None, cluster.uuid, first).state == \
        states.OPERATION_SUCCEEDED
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
                           == states.UPDATE_COMPLETE and c, what="UPDATE_COMPLETE")
    assert row.operation is None
    ng = nodegroups.get_by_uuid(None, worker.uuid)
    assert (ng.status, ng.node_count) == (states.UPDATE_COMPLETE, 3)
    assert standin.stacks_named(cluster.name)[0]["parameters"]["number_of_minions"] == "3"
