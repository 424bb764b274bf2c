"""The API's side of the RPC contract on SQLite and RabbitMQ (a recording RPC server in the
conductor's place): a request is recorded with its gate checked before it is cast, waits
behind an open operation, and a health report needs no conductor at all."""

from __future__ import annotations

import logging
import uuid

import oslo_messaging
import pytest
from oslo_config import cfg
from oslo_messaging.rpc import client as rpc_client

from magnum_common import conductor_api, exception, rpc, states
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


@pytest.fixture
def conductor(db):
    from tests.functional.api.support import RpcRecorder

    CONF.register_opts(oslo_messaging.transport._transport_opts)
    CONF.register_opts(rpc_client._client_opts)
    CONF.set_override("transport_url", "rabbit://guest:guest@127.0.0.1:5672/")
    topic = f"magnum-unit-{uuid.uuid4().hex[:12]}"
    CONF.set_override("topic", topic, "conductor")
    recorder = RpcRecorder(topic)
    recorder.clear_operations = False  # the records stay open: nothing finishes them
    yield recorder
    recorder.stop()
    rpc.cleanup()


def _settled(name: str = "c1") -> str:
    row = make_cluster(ALICE, name)
    clusters.clear_operation(row.uuid, states.OP_CREATE)
    operations.finish(row.operation_args["operation_id"], states.OPERATION_SUCCEEDED)
    clusters.update(None, row.uuid, {"status": states.CREATE_COMPLETE})
    return row.uuid


def test_a_create_is_recorded_on_the_path_every_operation_takes_then_cast(conductor):
    """The cluster, its two default node groups and the pending create with its record are
    in the database before the cast, which names the cluster only."""
    api = conductor_api.ConductorAPI()
    values = {"uuid": str(uuid.uuid4()), "name": "new", "project_id": ALICE.project_id,
              "user_id": ALICE.user_id, "status": states.CREATE_IN_PROGRESS,
              "labels": {"max_node_count": "4"}, "docker_volume_size": None,
              "master_flavor_id": "m1.medium", "flavor_id": "m1.small", "create_timeout": 30}
    record = api.submit_create(ALICE, values, "fcos", 3, 2)
    (cast,) = conductor.wait_for("cluster_create")
    assert cast["kwargs"] == {"cluster_uuid": values["uuid"]}
    assert (cast["operation"], cast["operation_args"]["operation_id"]) == (
        states.OP_CREATE, record)
    row = clusters.get_by_uuid(None, values["uuid"])
    assert {k: row.operation_args[k] for k in ("master_count", "node_count",
                                               "create_timeout")} == {
        "master_count": 3, "node_count": 2, "create_timeout": 30}
    groups = {ng.name: ng for ng in nodegroups.list(None, {"cluster_id": values["uuid"]})}
    assert (groups["default-master"].node_count, groups["default-worker"].node_count,
            groups["default-worker"].max_node_count, groups["default-worker"].image_id) == (
        3, 2, 4, "fcos")
    assert operations.get_by_uuid(None, record).kind == states.OP_CREATE


def test_a_resize_is_recorded_before_its_cast_and_the_next_one_waits(conductor):
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    worker = nodegroups.get_in_cluster(None, cluster, "default-worker")
    first = api.cluster_resize(ALICE, cluster, 5, worker.uuid)
    (cast,) = conductor.wait_for("cluster_resize")
    assert cast["kwargs"] == {"cluster_uuid": cluster}
    assert (cast["operation"], cast["operation_args"]["operation_id"]) == (
        states.OP_RESIZE, first)
    row = clusters.get_by_uuid(None, cluster)
    assert (row.status, row.operation_args["previous_status"]) == (
        states.UPDATE_IN_PROGRESS, states.CREATE_COMPLETE)
    second = api.cluster_resize(ALICE, cluster, 2, worker.uuid)
    assert operations.get_by_uuid(None, second).state == states.OPERATION_PENDING
    assert len(conductor.calls) == 1  # queued, not cast
    assert operations.queued_targets(cluster) == {worker.uuid}


def test_refusals_touch_no_row_and_send_nothing(conductor):
    api = conductor_api.ConductorAPI()
    failed = _settled("failed")
    clusters.update(None, failed, {"status": states.UPDATE_FAILED})
    worker = nodegroups.get_in_cluster(None, failed, "default-worker")
    before = clusters.get_by_uuid(None, failed)
    with pytest.raises(exception.NotSupported, match="UPDATE_FAILED"):
        api.cluster_upgrade(ALICE, failed, "template-uuid", 1, worker.uuid)
    after = clusters.get_by_uuid(None, failed)
    assert (after.status, after.updated_at, after.operation) == (
        before.status, before.updated_at, None)
    creating = make_cluster(ALICE, "creating")  # its create is still open
    group = nodegroups.get_in_cluster(None, creating.uuid, "default-worker")
    with pytest.raises(exception.OperationConflict):
        api.cluster_resize(ALICE, creating.uuid, 3, group.uuid)
    assert nodegroups.get_by_uuid(None, group.uuid).node_count == group.node_count
    assert conductor.calls == []


def test_a_health_report_is_applied_at_once(conductor):
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    worker = nodegroups.get_in_cluster(None, cluster, "default-worker")
    record = api.cluster_update(ALICE, cluster, worker.node_count,
                                health_status="HEALTHY", health_status_reason={"api": "ok"})
    row = clusters.get_by_uuid(None, cluster)
    assert (row.health_status, row.health_status_reason, row.operation) == (
        "HEALTHY", {"api": "ok"}, None)
    assert operations.get_by_uuid(None, record).state == states.OPERATION_SUCCEEDED
    assert conductor.calls == []


@pytest.mark.parametrize("finished", [True, False], ids=["ended", "still-open"])
def test_a_call_past_the_rpc_timeout_reports_what_the_record_says(conductor, caplog,
                                                                  finished):
    """An upgrade the conductor ran to its end after the API stopped waiting is not left to
    a reconciler; one whose record is still open is."""
    CONF.set_override("rpc_response_timeout", 1)
    conductor.clear_operations = finished  # the conductor finishes the record, or not yet
    conductor.delay["cluster_upgrade"] = 3.0
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    worker = nodegroups.get_in_cluster(None, cluster, "default-worker")
    with caplog.at_level(logging.INFO, logger=conductor_api.__name__):
        record = api.cluster_upgrade(ALICE, cluster, "template-uuid", 1, worker.uuid)
    state = operations.get_by_uuid(None, record).state
    assert state == (states.OPERATION_SUCCEEDED if finished else states.OPERATION_PENDING)
    said = [r.getMessage() for r in caplog.records if r.name == conductor_api.__name__]
    assert len(said) == 1 and f"({state})" in said[0], said
    assert ("for a reconciler" in said[0]) is not finished


def _held(cluster: str, record: str, progress: str, seconds_ago: int) -> None:
    """A conductor holds the cluster's live lease and the record last noted ``progress``
    ``seconds_ago`` (the database server's clock)."""
    import datetime

    from magnum_common.db import api as db_api

    now = db_api.server_now()
    clusters.update(None, cluster, {"lock_owner": "cond-a/1",
                                    "lock_expires_at": now + datetime.timedelta(seconds=60)})
    operations.start(record)
    operations.update(None, record, {
        "progress": progress, "updated_at": now - datetime.timedelta(seconds=seconds_ago)})


def test_a_delete_that_hangs_holding_the_lease_is_taken_over(conductor):
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    first = api.cluster_delete(ALICE, cluster)
    _held(cluster, first, "step stack_delete", seconds_ago=5)
    assert api.cluster_delete(ALICE, cluster) == first  # it made progress lately
    assert clusters.get_by_uuid(None, cluster).lock_owner == "cond-a/1"
    _held(cluster, first, "step stack_delete", seconds_ago=61)
    second = api.cluster_delete(ALICE, cluster)
    assert second != first
    row = clusters.get_by_uuid(None, cluster)
    assert (row.operation, row.operation_args["operation_id"], row.lock_owner,
            row.status) == (states.OP_DELETE, second, None, states.DELETE_IN_PROGRESS)
    old = operations.get_by_uuid(None, first)
    assert old.state == states.OPERATION_SUPERSEDED and second in old.result_reason
    assert [c["operation"] for c in conductor.wait_for("cluster_delete", count=3)] == [
        states.OP_DELETE] * 3
    CONF.set_override("delete_takeover_after", 0, "conductor")  # 0: always
    try:
        _held(cluster, second, "step auth", seconds_ago=0)
        assert api.cluster_delete(ALICE, cluster) not in (first, second)
    finally:
        CONF.clear_override("delete_takeover_after", "conductor")


def test_a_delete_waiting_for_heat_or_free_to_take_is_not_taken_over(conductor):
    import datetime

    api = conductor_api.ConductorAPI()
    cluster = _settled()
    first = api.cluster_delete(ALICE, cluster)
    # handed to the status sync (Heat deletes the stacks), the sync holds the lease now
    clusters.clear_operation(cluster, states.OP_DELETE)
    _held(cluster, first, "Stack delete sent to Heat.", seconds_ago=600)
    assert api.cluster_delete(ALICE, cluster) == first
    # the sync's end of the delete (trust, certificates) hangs: taken over
    operations.update(None, first, {"progress": "step trust_delete"})
    _held(cluster, first, "step trust_delete", seconds_ago=600)
    second = api.cluster_delete(ALICE, cluster)
    assert second != first and clusters.get_by_uuid(None, cluster).operation == \
        states.OP_DELETE
    # its lease expired: any conductor the cast reaches takes it, nothing is superseded
    _held(cluster, second, "step auth", seconds_ago=600)
    clusters.update(None, cluster, {"lock_expires_at": clusters.get_by_uuid(
        None, cluster).lock_expires_at - datetime.timedelta(seconds=120)})
    assert api.cluster_delete(ALICE, cluster) == second


def test_a_nodegroup_delete_stops_the_operation_on_its_node_group(conductor):
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    ng = str(uuid.uuid4())
    create = api.nodegroup_create(ALICE, cluster, {
        "uuid": ng, "name": "extra", "cluster_id": cluster, "project_id": ALICE.project_id,
        "node_count": 1, "role": "worker", "is_default": False})
    clusters.update(None, cluster, {"lock_owner": "cond-a/1"})
    delete = api.nodegroup_delete(ALICE, cluster, ng)
    row = clusters.get_by_uuid(None, cluster)
    assert (row.operation, row.operation_args["operation_id"], row.lock_owner) == (
        states.OP_NODEGROUP_DELETE, delete, None)
    assert row.operation_args["previous_status"] == states.CREATE_COMPLETE
    assert nodegroups.get_by_uuid(None, ng).status == states.DELETE_IN_PROGRESS
    superseded = operations.get_by_uuid(None, create)
    assert superseded.state == states.OPERATION_SUPERSEDED and delete in \
        superseded.result_reason
    assert api.nodegroup_delete(ALICE, cluster, ng) == delete
    assert [c["operation"] for c in conductor.wait_for("nodegroup_delete")] == [
        states.OP_NODEGROUP_DELETE]


def test_a_nodegroup_delete_waits_behind_an_operation_on_something_else(conductor):
    api = conductor_api.ConductorAPI()
    cluster = _settled()
    ng = str(uuid.uuid4())
    api.nodegroup_create(ALICE, cluster, {
        "uuid": ng, "name": "extra", "cluster_id": cluster, "project_id": ALICE.project_id,
        "node_count": 1, "role": "worker", "is_default": False})
    operations.finish(operations.open_of(cluster)[0].uuid, states.OPERATION_SUCCEEDED)
    clusters.clear_operation(cluster, states.OP_NODEGROUP_CREATE)
    worker = nodegroups.get_in_cluster(None, cluster, "default-worker")
    resize = api.cluster_resize(ALICE, cluster, 3, worker.uuid)
    delete = api.nodegroup_delete(ALICE, cluster, ng)
    assert operations.get_by_uuid(None, delete).state == states.OPERATION_PENDING
    assert operations.get_by_uuid(None, resize).state == states.OPERATION_PENDING
    row = clusters.get_by_uuid(None, cluster)
    assert (row.operation, row.operation_args["operation_id"]) == (states.OP_RESIZE, resize)
    assert nodegroups.get_by_uuid(None, ng).status == states.DELETE_IN_PROGRESS
