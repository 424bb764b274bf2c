"""Cluster lifecycle through a real RPC server (RabbitMQ), DB and the Keystone/Heat stand-in."""

from __future__ import annotations

import json

import support

from magnum_common import crypto, states
from magnum_common.conductor_api import ConductorAPI
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
