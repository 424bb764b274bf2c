"""Handlers and periodic tasks beyond the happy path, in-process over real RabbitMQ + HTTP."""

from __future__ import annotations

import datetime
import threading
import time
import uuid

import oslo_messaging as messaging
import pytest
import support
from oslo_config import cfg

from magnum_common import exception, rpc, states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.context import RequestContext
from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from magnum_common.db.services import magnum_services
from magnum_conductor.conf import BINARY
from magnum_conductor.engine.executor import Executor
from magnum_conductor.status import sync as status_sync
from magnum_conductor.status.sync import StatusSync

CONF = cfg.CONF


def _wait_status(uuid_, status, timeout=30):
    return support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, uuid_)).status == status
        and c.operation is None and c, timeout=timeout, what=status)


def _create(ctx=None):
    ctx = ctx or support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    return ctx, cluster


def test_heat_5xx_is_retried(conductor, standin):
    standin.control(fail_5xx=2, create_seconds=0.5)
    _, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    assert len(standin.stacks_named(cluster.name)) == 1


def test_heat_down_fails_with_clear_reason(conductor, standin):
    standin.control(fail_5xx=1000)
    _, cluster = _create()
    row = _wait_status(cluster.uuid, states.CREATE_FAILED)
    assert "Heat did not answer after 3 attempts" in row.status_reason
    assert "503" in row.status_reason
    assert all(ng.status == states.CREATE_FAILED
               for ng in nodegroups.list(None, {"cluster_id": cluster.uuid}))


def test_heat_timeout_is_retried(conductor, standin):
    standin.control(hang_count=1, hang_seconds=5, create_seconds=0.5)
    _, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE, timeout=40)
    assert len(standin.stacks_named(cluster.name)) == 1


def test_expired_token_without_trust_fails_clearly(conductor, standin):
    ctx = RequestContext(auth_token="expired-token", user_id="demo-user",
                         project_id="demo-project", roles=["member"])
    _, cluster = _create(ctx)
    row = _wait_status(cluster.uuid, states.CREATE_FAILED)
    assert "trust" in row.status_reason.lower()
    assert standin.state()["stacks"] == []


def test_update_acts_through_trust_after_token_expiry(conductor, standin):
    standin.control(create_seconds=0.3, update_seconds=0.3)
    ctx, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    expired = RequestContext(auth_token="expired-token", user_id=ctx.user_id,
                             project_id=ctx.project_id, roles=["member"])
    ConductorAPI().cluster_update(expired, cluster.uuid, 2)
    _wait_status(cluster.uuid, states.UPDATE_COMPLETE)
    assert standin.stacks_named(cluster.name)[0]["parameters"]["number_of_minions"] == "2"


def test_gate_refuses_resize_of_deleting_cluster(conductor, standin):
    standin.control(create_seconds=0.3)
    ctx, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    clusters.compare_and_swap(None, cluster.uuid, {}, {"status": states.DELETE_FAILED})
    before = clusters.get_by_uuid(None, cluster.uuid)
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    with pytest.raises(exception.NotSupported, match='Resizing a cluster when status is '
                       '"DELETE_FAILED" is not supported'):
        ConductorAPI().cluster_resize(ctx, cluster.uuid, 5, worker.uuid)
    after = clusters.get_by_uuid(None, cluster.uuid)
    assert (after.operation, after.updated_at) == (None, before.updated_at)
    # The status moved between the API's record and the conductor's start: refused there.
    clusters.record_operation(ctx, cluster.uuid, states.OP_RESIZE, {
        "node_count": 5, "nodegroup_uuid": worker.uuid, **ctx.record()})
    clusters.compare_and_swap(None, cluster.uuid, {}, {"status": states.DELETE_FAILED,
                                                       "updated_at": before.updated_at})
    ConductorAPI()._cast(ctx, "cluster_resize", cluster_uuid=cluster.uuid)
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).operation is None,
                     what="operation refused and cleared")
    after = clusters.get_by_uuid(None, cluster.uuid)
    assert (after.status, after.updated_at) == (states.DELETE_FAILED, before.updated_at)
    assert nodegroups.get_by_uuid(None, worker.uuid).node_count == 1


def test_refused_calls_change_nothing(conductor, standin):
    """Conductor refusals reach the caller as their own 4xx class, and leave the row as it
    was."""
    standin.control(create_seconds=0.3)
    ctx, cluster = _create()
    before = _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    api = ConductorAPI()
    clusters.compare_and_swap(None, cluster.uuid, {}, {"status": states.UPDATE_FAILED,
                                                       "updated_at": before.updated_at})
    for call in (lambda: api.rotate_ca_certificate(ctx, cluster.uuid),
                 lambda: api.cluster_upgrade(ctx, cluster.uuid, before.cluster_template_id,
                                             1, "x")):
        with pytest.raises(exception.NotSupported) as err:
            call()
        assert err.value.code == 400
    after = clusters.get_by_uuid(None, cluster.uuid)
    assert (after.updated_at, after.operation, after.lock_owner) == (before.updated_at,
                                                                     None, None)


def test_nodegroup_create_and_delete(conductor, standin):
    standin.control(create_seconds=0.3, delete_seconds=0.3)
    ctx, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    values = {"uuid": str(uuid.uuid4()), "name": "extra", "cluster_id": cluster.uuid,
              "project_id": ctx.project_id, "node_count": 2, "role": "worker",
              "is_default": False}
    api = ConductorAPI()
    api.nodegroup_create(ctx, cluster.uuid, values)
    ng = nodegroups.get_by_uuid(None, values["uuid"])
    _wait_status(cluster.uuid, states.UPDATE_COMPLETE)
    assert nodegroups.get_by_uuid(None, ng.uuid).status == states.CREATE_COMPLETE
    assert len(standin.state()["stacks"]) == 2
    api.nodegroup_delete(ctx, cluster.uuid, ng.uuid)
    support.wait_for(lambda: not nodegroups.list(None, {"cluster_id": cluster.uuid,
                                                        "name": "extra"}),
                     what="node group row destroyed")
    _wait_status(cluster.uuid, states.UPDATE_COMPLETE)


def test_upgrade_and_ca_rotation_calls(conductor, standin):
    standin.control(create_seconds=0.3, update_seconds=0.3)
    ctx, cluster = _create()
    row = _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    api = ConductorAPI()
    ca_before = api.get_ca_certificate(ctx, cluster.uuid)
    assert "BEGIN CERTIFICATE" in ca_before
    api.rotate_ca_certificate(ctx, cluster.uuid)
    _wait_status(cluster.uuid, states.UPDATE_COMPLETE)
    assert clusters.get_by_uuid(None, cluster.uuid).ca_cert_ref != row.ca_cert_ref
    assert api.get_ca_certificate(ctx, cluster.uuid) != ca_before

    new_template = support.make_template(labels={"kube_tag": "v1.32.1"})
    master = nodegroups.get_in_cluster(None, cluster.uuid, "default-master")
    api.cluster_upgrade(ctx, cluster.uuid, new_template.uuid, 2, master.uuid)
    row = _wait_status(cluster.uuid, states.UPDATE_COMPLETE)
    assert row.cluster_template_id == new_template.uuid
    # The rows carry the new versions, so later updates don't roll the nodes back.
    assert row.labels["kube_tag"] == "v1.32.1"
    assert {g.name: g.labels.get("kube_tag") for g in nodegroups.list(
        None, {"cluster_id": cluster.uuid})} == {"default-master": "v1.32.1",
                                                 "default-worker": "v1.32.1"}


@pytest.fixture
def nodes_hold_the_trust():
    CONF.set_override("cluster_user_trust", True, "trust")
    yield
    CONF.clear_override("cluster_user_trust", "trust")


def _trustee(row):
    return {key: getattr(row, key) for key in ("trustee_user_id", "trust_id")}


def test_credential_rotation_retires_the_old_trust_once_the_nodes_hold_the_new(
        conductor, standin, nodes_hold_the_trust):
    """A project member rotates (the creator may be gone): a new trustee and a trust from
    that member, pushed to the nodes by a stack update; the old pair stays while Heat
    replaces the nodes and goes once the update is complete. A second rotation retires
    the first one's pair too."""
    standin.control(create_seconds=0.3, update_seconds=2.0)
    ctx, cluster = _create()
    old = _trustee(_wait_status(cluster.uuid, states.CREATE_COMPLETE))
    rotator = support.requester(user="another-member")
    record = ConductorAPI().credential_rotate(rotator, cluster.uuid)
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid))
                           .trust_id != old["trust_id"] and c, what="new trust on the row")
    new = _trustee(row)
    assert row.status == states.UPDATE_IN_PROGRESS and row.operation == "credential_rotate"
    [stack] = standin.stacks_named(cluster.name)
    support.wait_for(lambda: standin.stacks_named(cluster.name)[0]["parameters"].get(
        "trustee_user_id") == new["trustee_user_id"], what="stack update with the trustee")
    state = standin.state()
    trusts = {t["id"]: t for t in state["trusts"]}
    assert trusts[new["trust_id"]]["trustor_user_id"] == "another-member"
    assert old["trust_id"] in trusts, "the nodes still being replaced keep the old trust"
    assert old["trustee_user_id"] in {u["id"] for u in state["users"]}
    _wait_status(cluster.uuid, states.UPDATE_COMPLETE)
    state = standin.state()
    assert {t["id"] for t in state["trusts"]} == {new["trust_id"]}
    assert {u["id"] for u in state["users"]} == {new["trustee_user_id"]}
    assert operations.get_in_cluster(None, cluster.uuid, record).state == \
        states.OPERATION_SUCCEEDED
    # the rotator is the trustor: the cluster now acts as them
    assert clusters.get_by_uuid(None, cluster.uuid).user_id == "another-member"
    # the stack was updated, once
    assert standin.stacks_named(cluster.name)[0]["parameters"]["trustee_user_id"] == \
        new["trustee_user_id"]

    ConductorAPI().credential_rotate(ctx, cluster.uuid)
    third = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid))
                             .trust_id != new["trust_id"] and c.status
                             == states.UPDATE_COMPLETE and c.operation is None and c,
                             what="second rotation done")
    state = standin.state()
    assert {u["id"] for u in state["users"]} == {third.trustee_user_id}
    assert {t["id"] for t in state["trusts"]} == {third.trust_id}


def test_a_failed_push_keeps_both_pairs_and_the_next_rotation_retires_them(
        conductor, standin, nodes_hold_the_trust):
    standin.control(create_seconds=0.3, update_seconds=0.3)
    _, cluster = _create()
    old = _trustee(_wait_status(cluster.uuid, states.CREATE_COMPLETE))
    standin.control(fail_stacks={"UPDATE": "*"})
    rotator = support.requester(user="another-member")
    ConductorAPI().credential_rotate(rotator, cluster.uuid)
    row = _wait_status(cluster.uuid, states.UPDATE_FAILED)
    assert "the previous trustee and trust stay" in row.status_reason
    kept = {u["id"] for u in standin.state()["users"]}
    assert kept == {old["trustee_user_id"], row.trustee_user_id}
    standin.control(fail_stacks={})
    ConductorAPI().credential_rotate(rotator, cluster.uuid)
    done = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid))
                            .status == states.UPDATE_COMPLETE and c.operation is None and c,
                            what="rotation done")
    state = standin.state()
    assert {u["id"] for u in state["users"]} == {done.trustee_user_id}
    assert {t["id"] for t in state["trusts"]} == {done.trust_id}


def test_without_the_nodes_trust_rotation_replaces_the_conductors_pair_only(
        conductor, standin):
    """[trust] cluster_user_trust = false: nothing on the nodes to rotate; the trustee and
    trust the conductor acts with are replaced at once, no stack is touched, and the
    cluster is back in the status it was in."""
    standin.control(create_seconds=0.3)
    _, cluster = _create()
    before = _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    old = _trustee(before)
    updates = {k: v for k, v in standin.state()["requests"].items() if "PATCH" in k}
    record = ConductorAPI().credential_rotate(support.requester(user="another-member"),
                                              cluster.uuid)
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid))
                           .operation is None and c.trust_id != old["trust_id"] and c,
                           what="rotated")
    assert row.status == states.CREATE_COMPLETE
    assert {k: v for k, v in standin.state()["requests"].items() if "PATCH" in k} == updates
    state = standin.state()
    assert {u["id"] for u in state["users"]} == {row.trustee_user_id}
    assert {t["id"] for t in state["trusts"]} == {row.trust_id}
    assert operations.get_in_cluster(None, cluster.uuid, record).state == \
        states.OPERATION_SUCCEEDED


def test_health_polled_and_unknown_on_error(conductor, standin):
    standin.control(create_seconds=0.3)
    _, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(health={cluster.uuid: {"node-0.Ready": True, "api": "ok"}})
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).health_status
                     == states.HEALTHY, what="HEALTHY")
    standin.control(health={cluster.uuid: {"node-0.Ready": False}})
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).health_status
                     == states.UNHEALTHY, what="UNHEALTHY")
    standin.control(health={})
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid))
                           .health_status == states.UNKNOWN and c, what="UNKNOWN")
    assert "not accessible" in row.health_status_reason["api"]


class _Collector:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self.events.append((event_type, payload["outcome"]))

    error = info


def test_cadf_notifications(conductor_options, standin, db):
    topic = f"magnum-notify-{uuid.uuid4().hex[:8]}"
    support.apply_options({"oslo_messaging_notifications": {"driver": ["messaging"],
                                                            "topics": [topic]}})
    collector = _Collector()
    listener = messaging.get_notification_listener(
        rpc.get_notification_transport(), [messaging.Target(topic=topic)], [collector],
        executor="threading")
    listener.start()
    from magnum_conductor.engine import notifications
    from magnum_conductor.service import Conductor

    notifications._notifier = None
    instance = Conductor()
    instance.start()
    try:
        standin.control(create_seconds=0.3, delete_seconds=0.3)
        ctx, cluster = _create()
        _wait_status(cluster.uuid, states.CREATE_COMPLETE)
        ConductorAPI().cluster_delete(ctx, cluster.uuid)
        support.wait_for(lambda: ("magnum.cluster.delete", "success") in collector.events,
                         what="delete success notification")
    finally:
        instance.stop()
        listener.stop()
        listener.wait()
        notifications._notifier = None
        rpc.cleanup()
    assert collector.events[:2] == [("magnum.cluster.create", "pending"),
                                    ("magnum.cluster.create", "success")]
    assert ("magnum.cluster.delete", "pending") in collector.events


def test_sync_polls_each_cluster_exactly_once(conductor_options, db):
    """One poll per in-progress cluster per round across all conductors: the ring's members
    are processes, never host names. Two workers of host h1, a second h1 (another machine
    configured with the same ``[DEFAULT] host``), h2, h3, and h4 whose service is disabled
    (it polls nothing).

    This used to see 900 polls instead of 300 on a loaded machine: the heartbeats were older
    than service_down_time (6 s) by the time the syncs ran (300 inserts outlasted it), each
    conductor then found no live peer and added itself to its ring, a ring of one that owns
    every cluster. The ring now holds only the live processes of enabled services, and
    liveness is judged on the database's clock; the test gives heartbeats a minute. With
    the ring keyed on host names the two h1 processes of worker 0 polled the same share."""
    support.apply_options({"DEFAULT": {"service_down_time": 60}})
    uuids = {clusters.create(None, {"name": f"c{i}", "project_id": "p",
                                    "status": states.UPDATE_IN_PROGRESS}).uuid
             for i in range(300)}
    members = ["h1:0:a", "h1:1:a", "h1:0:b", "h2:0:a", "h3:0:a", "h4:0:a"]
    for identity in members:
        _heartbeat(identity)
    _disable("h4")
    syncs = [StatusSync(Executor(identity)) for identity in members]
    polled = [sync.run_once().polled_uuids for sync in syncs]
    assert sorted(u for p in polled for u in p) == sorted(uuids)
    assert polled[-1] == []
    assert all(len(p) > 20 for p in polled[:-1])


def _heartbeat(identity: str) -> None:
    """A live conductor process ``identity`` (host:worker:id): its service row and its own."""
    host = identity.split(":", 1)[0]
    magnum_services.heartbeat(host, BINARY)
    magnum_services.process_heartbeat(identity, host, BINARY)


def _disable(host: str) -> None:
    from magnum_common.db import api as db_api
    from magnum_common.db import models

    with db_api.writer() as session:
        session.query(models.MagnumService).filter_by(host=host).update({"disabled": True})


def _created_by_h1(standin, **control) -> tuple[RequestContext, object, Executor]:
    """A cluster whose create the live process h1:0:x ran (its stacks sent to Heat)."""
    _heartbeat("h1:0:x")
    standin.control(**control)
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    executor = Executor("h1:0:x")
    executor.run_recorded(cluster.uuid)
    return ctx, cluster, executor


def test_complete_is_never_written_without_the_outputs(conductor_options, db, standin):
    """A finished stack whose outputs can't be read (Heat restarting) keeps the cluster in
    progress until a later round reads them; it never turns *_COMPLETE with stale data."""
    _, cluster, executor = _created_by_h1(standin, create_seconds=0.2)
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert row.stack_id
    # The sync reads a cluster once its operation's settling time is over (counted from the
    # record) and its stack is done; h1 owns it while h1 is alive (a live process beats every
    # report_interval; the create may have taken longer than service_down_time).
    settled = row.operation_at + datetime.timedelta(seconds=status_sync.SETTLE_SECONDS)
    support.wait_for(lambda: db_api.now() > settled and [
        s["stack_status"] for s in standin.state()["stacks"] if s["id"] == row.stack_id
    ] == ["CREATE_COMPLETE"], what="the operation settled and its stack created")
    _heartbeat("h1:0:x")
    sync = StatusSync(executor)
    # The list call answers; every later call (the outputs read, all its retries) gets 503.
    standin.control(fail_5xx=50, fail_5xx_after=1)
    sync.run_once()
    assert standin.state()["control"]["fail_5xx"] < 50  # the outputs read was attempted
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert (row.status, row.api_address) == (states.CREATE_IN_PROGRESS, None)
    standin.control(fail_5xx=0, fail_5xx_after=0)
    _heartbeat("h1:0:x")
    sync.run_once()
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert row.status == states.CREATE_COMPLETE and row.api_address


def test_a_stack_past_its_timeout_fails_cluster_node_groups_and_record_at_once(
        conductor_options, db, standin):
    """Heat still creating past the cluster's create_timeout: the sync writes CREATE_FAILED
    on the cluster and its node groups and fails the record, in one transaction."""
    _, cluster, executor = _created_by_h1(standin, create_seconds=3600)
    long_ago = db_api.now() - datetime.timedelta(hours=2)
    clusters.compare_and_swap(None, cluster.uuid, {}, {"operation_at": long_ago})
    sync = StatusSync(executor)
    sync.run_once()  # a first round may write Heat's in-progress reason; then the verdict
    sync.run_once()
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert row.status == states.CREATE_FAILED
    assert row.status_reason.startswith("Timed out: the cluster's stacks were not created "
                                        "within 60 minutes")
    assert {(ng.status, ng.status_reason) for ng in nodegroups.list(
        None, {"cluster_id": cluster.uuid})} == {(states.CREATE_FAILED, row.status_reason)}
    [record] = operations.list_in_cluster(None, cluster.uuid)
    assert (record.state, record.result_reason) == (states.OPERATION_FAILED,
                                                    row.status_reason)


def test_stack_missing_from_the_list_is_not_taken_as_deleted(conductor, standin):
    """Heat's list leaves a stack out that still exists (it is deleting): the row, the
    trust and the certificates stay until ``stacks.get`` confirms the stack is gone."""
    standin.control(create_seconds=0.3)
    ctx, cluster = _create()
    row = _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(delete_seconds=6, unlisted=[row.stack_id])
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).operation is None,
                     what="delete sent to Heat")
    time.sleep(3)  # three sync rounds with the stack missing from every list
    assert clusters.get_by_uuid(None, cluster.uuid).status == states.DELETE_IN_PROGRESS
    assert len(standin.state()["trusts"]) == 1
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE", timeout=30,
                     what="cluster destroyed once the stack is gone")
    assert standin.state()["trusts"] == []


def test_sync_refuses_a_write_from_before_a_newer_operation(conductor_options, db, standin):
    """The sync read Heat (resize to 2 done) before a resize to 3 started and was sent: its
    verdict from that snapshot is refused, the cluster stays in progress for the newer
    operation, and the next round judges the newer stack state (issue 12, point 5)."""
    ctx, cluster, executor = _created_by_h1(standin, create_seconds=0.2, update_seconds=0.2)
    time.sleep(status_sync.SETTLE_SECONDS + 0.5)
    sync = StatusSync(executor)
    sync.run_once()
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")

    def resize(count: int) -> None:
        clusters.record_operation(ctx, cluster.uuid, states.OP_RESIZE, {
            "node_count": count, "nodegroup_uuid": worker.uuid, "context": ctx.to_dict()})
        executor.run_recorded(cluster.uuid)

    resize(2)
    time.sleep(status_sync.SETTLE_SECONDS + 0.5)
    stale = [c for c in status_sync._in_progress_clusters() if c.uuid == cluster.uuid]
    groups = status_sync._nodegroups_of([cluster.uuid])[cluster.uuid]
    stacks, _ = sync._fetch(stale, {cluster.uuid: groups}, status_sync.SyncStats())
    assert {s.status for s in stacks.values()} == {states.UPDATE_COMPLETE}
    standin.control(update_seconds=30)
    resize(3)  # recorded, run and sent: Heat now updates to 3
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert (row.status, row.operation) == (states.UPDATE_IN_PROGRESS, None)
    assert not sync._check(stale[0], groups, stacks, db_api.server_now())
    assert clusters.get_by_uuid(None, cluster.uuid).status == states.UPDATE_IN_PROGRESS


def _settled(cluster_uuid):
    """The cluster finished everything asked of it: no open record, status complete."""
    row = clusters.get_by_uuid(None, cluster_uuid)
    return (not operations.open_of(cluster_uuid) and row.operation is None
            and not states.is_in_progress(row.status) and row)


def test_parallel_requests_queue_and_all_succeed(conductor, standin):
    """terraform's three parallel node-group creates, then a resize right after a
    node-group PATCH: every request is accepted and runs, in order, to the end."""
    standin.control(create_seconds=0.3, update_seconds=0.3)
    ctx, cluster = _create()
    _wait_status(cluster.uuid, states.CREATE_COMPLETE)
    api = ConductorAPI()
    groups = [{"uuid": str(uuid.uuid4()), "name": f"ng{i}", "cluster_id": cluster.uuid,
               "project_id": ctx.project_id, "node_count": 1, "role": "worker",
               "is_default": False} for i in range(3)]
    threads = [threading.Thread(target=api.nodegroup_create, args=(ctx, cluster.uuid, g))
               for g in groups]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    row = support.wait_for(lambda: _settled(cluster.uuid), timeout=90, what="creates done")
    assert row.status == states.UPDATE_COMPLETE
    assert {ng.name: ng.status for ng in nodegroups.list(None, {"cluster_id": cluster.uuid})
            if not ng.is_default} == {f"ng{i}": states.CREATE_COMPLETE for i in range(3)}
    assert len(standin.state()["stacks"]) == 4
    creates = [r for r in operations.list_in_cluster(None, cluster.uuid)
               if r.kind == states.OP_NODEGROUP_CREATE]
    assert [r.state for r in creates] == [states.OPERATION_SUCCEEDED] * 3

    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    patch = api.nodegroup_update(ctx, cluster.uuid, worker.uuid, {
        "min_node_count": 0, "max_node_count": None, "node_labels": {"tier": "web"},
        "node_taints": []})
    resize = api.cluster_resize(ctx, cluster.uuid, 3, worker.uuid)
    support.wait_for(lambda: _settled(cluster.uuid), timeout=90, what="resize done")
    assert [operations.get_in_cluster(None, cluster.uuid, r).state
            for r in (patch, resize)] == [states.OPERATION_SUCCEEDED] * 2
    worker = nodegroups.get_by_uuid(None, worker.uuid)
    assert (worker.node_count, worker.node_labels) == (3, {"tier": "web"})
    assert standin.stacks_named(cluster.name)[0]["parameters"]["number_of_minions"] == "3"
