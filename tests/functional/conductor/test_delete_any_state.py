"""DELETE accepted in every state (issue 12, point 3; issue 14, point 2), over real RabbitMQ,
the database and conductors against the OpenStack stand-in: it supersedes what is queued,
stops what runs (also on a conductor that hangs or was killed -9), deletes the stacks found
by id or name, and leaves nothing behind (no stack, trust, trustee or certificate)."""

from __future__ import annotations

import os
import signal
import threading
import time
import urllib.request
import uuid

import pytest
import support
from oslo_config import cfg

from magnum_common import states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations

CONF = cfg.CONF


def _create(standin, **control):
    standin.control(**control)
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    return ctx, cluster


def _complete(uuid_, status, timeout=30):
    return support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, uuid_)).status == status
        and c.operation is None and c, timeout=timeout, what=status)


def _gone(cluster, timeout=30):
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE", timeout=timeout,
                     what="cluster deleted")


def _nothing_left(standin, cluster):
    """No live stack, trust, trustee user or certificate of the cluster."""
    state = standin.state()
    assert [s["stack_name"] for s in state["stacks"] if not s["deleted"]] == []
    assert state["trusts"] == []
    assert state["users"] == []
    with db_api.reader() as session:
        assert session.query(models.X509KeyPair).count() == 0
    assert nodegroups.list(None, {"cluster_id": cluster.uuid}) == []


def _records(cluster_uuid):
    return {r.kind: r for r in operations.list_in_cluster(None, cluster_uuid)}


def _superseded_by_the_delete(cluster_uuid, kinds):
    records = _records(cluster_uuid)
    delete = records[states.OP_DELETE]
    assert delete.state == states.OPERATION_SUCCEEDED
    for kind in kinds:
        assert records[kind].state == states.OPERATION_SUPERSEDED, kind
        assert delete.uuid in records[kind].result_reason


def test_delete_during_create_deletes_the_stack_being_created(conductor, standin):
    """Heat is still creating the stack (the conductor handed the create to the sync): the
    delete is accepted, its first read shows DELETE_IN_PROGRESS, and the stack goes."""
    ctx, cluster = _create(standin, create_seconds=60, delete_seconds=0.5)
    support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).stack_id
                     and c.operation is None, what="stack being created")
    record = ConductorAPI().cluster_delete(ctx, cluster.uuid)
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert row.status == states.DELETE_IN_PROGRESS
    assert {ng.status for ng in nodegroups.list(None, {"cluster_id": cluster.uuid})} == {
        states.DELETE_IN_PROGRESS}
    assert operations.get_in_cluster(None, cluster.uuid, record).kind == states.OP_DELETE
    _gone(cluster)
    _nothing_left(standin, cluster)
    _superseded_by_the_delete(cluster.uuid, [states.OP_CREATE])


def test_delete_takes_over_a_create_hung_in_heat(conductor, standin):
    """The conductor's stack create hangs (Heat made the stack, its answer never comes, so
    no stack id was saved): the delete does not wait for the hung call or the operation's
    maximum time; the same process takes the cluster over and finds the stack by name."""
    ctx, cluster = _create(standin, create_seconds=60, delete_seconds=0.5,
                           hang_after={"method": "POST", "seconds": 25})
    support.wait_for(lambda: standin.stacks_named(cluster.name)
                     and standin.state()["control"]["hang_after"] is None,
                     what="stack create sent, answer held")
    assert clusters.get_by_uuid(None, cluster.uuid).stack_id is None
    started = time.monotonic()
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    _gone(cluster, timeout=20)
    assert time.monotonic() - started < 20
    _nothing_left(standin, cluster)
    _superseded_by_the_delete(cluster.uuid, [states.OP_CREATE])


@pytest.mark.parametrize("operation", ["resize", "upgrade", "rotate_ca"])
def test_delete_during_resize_upgrade_or_ca_rotation(conductor, standin, operation):
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(update_seconds=60, delete_seconds=0.5)
    api = ConductorAPI()
    if operation == "resize":
        worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
        api.cluster_resize(ctx, cluster.uuid, 3, worker.uuid)
        kind = states.OP_RESIZE
    elif operation == "upgrade":
        new_template = support.make_template(labels={"kube_tag": "v1.32.1"})
        master = nodegroups.get_in_cluster(None, cluster.uuid, "default-master")
        api.cluster_upgrade(ctx, cluster.uuid, new_template.uuid, 1, master.uuid)
        kind = states.OP_UPGRADE
    else:
        api.rotate_ca_certificate(ctx, cluster.uuid)
        kind = states.OP_ROTATE_CA
    support.wait_for(lambda: standin.stacks_named(cluster.name)[0]["stack_status"]
                     == "UPDATE_IN_PROGRESS", what="stack update under way")
    api.cluster_delete(ctx, cluster.uuid)
    assert clusters.get_by_uuid(None, cluster.uuid).status == states.DELETE_IN_PROGRESS
    _gone(cluster)
    _nothing_left(standin, cluster)
    _superseded_by_the_delete(cluster.uuid, [kind])


def test_delete_supersedes_the_queue(conductor, standin):
    """A resize runs, a node-group create and a PATCH wait behind it: the delete ends all
    three (superseded, naming it); the queued create never makes its stack."""
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(update_seconds=60, delete_seconds=0.5)
    api = ConductorAPI()
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    api.cluster_resize(ctx, cluster.uuid, 3, worker.uuid)
    support.wait_for(lambda: standin.stacks_named(cluster.name)[0]["stack_status"]
                     == "UPDATE_IN_PROGRESS", what="the resize runs")
    api.nodegroup_create(ctx, cluster.uuid, {
        "uuid": str(uuid.uuid4()), "name": "extra", "cluster_id": cluster.uuid,
        "project_id": ctx.project_id, "node_count": 1, "role": "worker",
        "is_default": False})
    api.cluster_update(ctx, cluster.uuid, 5)
    assert [r.state for r in operations.open_of(cluster.uuid)] == [
        states.OPERATION_RUNNING, states.OPERATION_PENDING, states.OPERATION_PENDING]
    api.cluster_delete(ctx, cluster.uuid)
    assert operations.open_of(cluster.uuid)[0].kind == states.OP_DELETE
    _gone(cluster)
    _nothing_left(standin, cluster)
    assert len(standin.state()["stacks"]) == 1
    _superseded_by_the_delete(cluster.uuid, [states.OP_RESIZE, states.OP_NODEGROUP_CREATE,
                                             states.OP_UPDATE])


def test_second_delete_changes_nothing_and_a_failed_delete_is_retried(conductor, standin):
    """(With one stack delete per DELETE: the retries within one are test_effects'.)"""
    CONF.set_override("stack_delete_attempts", 1, "conductor")
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(delete_seconds=0.5, fail_stacks={"DELETE": "*"})
    api = ConductorAPI()
    first = api.cluster_delete(ctx, cluster.uuid)
    assert api.cluster_delete(ctx, cluster.uuid) == first
    _complete(cluster.uuid, states.DELETE_FAILED)
    standin.control(fail_stacks={})
    second = api.cluster_delete(ctx, cluster.uuid)
    assert second != first
    _gone(cluster)
    _nothing_left(standin, cluster)
    assert [r.state for r in operations.list_in_cluster(None, cluster.uuid, sort_dir="asc")
            ] == [states.OPERATION_SUCCEEDED, states.OPERATION_FAILED,
                  states.OPERATION_SUCCEEDED]


def test_nodegroup_delete_in_any_state(conductor, standin):
    """A node group's delete while its create waits in the queue supersedes the create;
    a second delete of it names the first."""
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(update_seconds=3, create_seconds=0.3, delete_seconds=0.3)
    api = ConductorAPI()
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    api.cluster_resize(ctx, cluster.uuid, 2, worker.uuid)
    ng_uuid = str(uuid.uuid4())
    create = api.nodegroup_create(ctx, cluster.uuid, {
        "uuid": ng_uuid, "name": "extra", "cluster_id": cluster.uuid,
        "project_id": ctx.project_id, "node_count": 1, "role": "worker",
        "is_default": False})
    delete = api.nodegroup_delete(ctx, cluster.uuid, ng_uuid)
    assert api.nodegroup_delete(ctx, cluster.uuid, ng_uuid) == delete
    support.wait_for(lambda: not nodegroups.list(None, {"cluster_id": cluster.uuid,
                                                        "name": "extra"}),
                     timeout=40, what="node group row destroyed")
    _complete(cluster.uuid, states.UPDATE_COMPLETE)
    assert operations.get_in_cluster(None, cluster.uuid, create).state == \
        states.OPERATION_SUPERSEDED
    assert operations.get_in_cluster(None, cluster.uuid, delete).state == \
        states.OPERATION_SUCCEEDED
    assert len(standin.state()["stacks"]) == 1


def test_nodegroup_delete_finds_its_stack_by_name(conductor, standin):
    """A node group whose stack id was never saved (the create's answer was lost): its
    delete finds the stack by name and waits for it to go."""
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(delete_seconds=0.5)
    api = ConductorAPI()
    ng_uuid = str(uuid.uuid4())
    api.nodegroup_create(ctx, cluster.uuid, {
        "uuid": ng_uuid, "name": "extra", "cluster_id": cluster.uuid,
        "project_id": ctx.project_id, "node_count": 1, "role": "worker",
        "is_default": False})
    _complete(cluster.uuid, states.UPDATE_COMPLETE)
    nodegroups.update(None, ng_uuid, {"stack_id": None})
    api.nodegroup_delete(ctx, cluster.uuid, ng_uuid)
    support.wait_for(lambda: not nodegroups.list(None, {"cluster_id": cluster.uuid,
                                                        "name": "extra"}),
                     timeout=30, what="node group row destroyed")
    assert [s["stack_name"] for s in standin.state()["stacks"] if not s["deleted"]] == [
        standin.stacks_named(cluster.name)[0]["stack_name"]]


def _revoke(standin, trust_id):
    request = urllib.request.Request(f"{standin.url}/v3/OS-TRUST/trusts/{trust_id}",
                                     method="DELETE")
    with urllib.request.urlopen(request, timeout=10):
        pass


@pytest.mark.parametrize("stack_id", ["recorded", "lost"])
def test_trust_revoked_delete_acts_as_the_service(conductor, standin, stack_id):
    """The owner's trust was revoked outside Magnum and the requester's token is gone too:
    the delete (and the sync that waits for the stack) act as the service identity, which
    finds a stack whose id was never recorded by name in the list of all projects."""
    ctx, cluster = _create(standin, create_seconds=0.3)
    row = _complete(cluster.uuid, states.CREATE_COMPLETE)
    if stack_id == "lost":
        clusters.update(None, cluster.uuid, {"stack_id": None})
        for ng in nodegroups.list(None, {"cluster_id": cluster.uuid}):
            nodegroups.update(None, ng.uuid, {"stack_id": None})
    _revoke(standin, row.trust_id)
    standin.control(delete_seconds=0.5)
    expired = support.requester()
    expired.auth_token = "expired-token"
    ConductorAPI().cluster_delete(expired, cluster.uuid)
    _gone(cluster)
    _nothing_left(standin, cluster)


@pytest.fixture
def fleet(conductor_options, standin, tmp_path, db):
    fleet = support.Fleet(tmp_path, db, conductor_options)
    yield fleet
    fleet.stop()


def _long_leases(fleet):
    """Leases of a minute: a delete that finishes well within it did not wait for one."""
    fleet.values = {**fleet.values, "conductor": {**fleet.values["conductor"],
                                                  "lease_seconds": 60}}


@pytest.mark.parametrize("fault", ["kill -9", "hung"])
def test_delete_takes_over_from_a_dead_or_hung_conductor(fleet, standin, fault):
    """The conductor holding the create (its stack request sent, the id never saved) is
    killed -9, or hangs (SIGSTOP: it renews nothing, answers nothing): the delete runs at
    once on the other conductor, without waiting for the lease (a minute) or the operation's
    maximum time. The hung one, resumed, finds its work taken over and writes nothing."""
    _long_leases(fleet)
    fleet.start("c1")
    fleet.start("c2")
    ctx, cluster = _create(standin, create_seconds=60, delete_seconds=0.5,
                           hang_after={"method": "POST", "seconds": 8})
    holder = support.wait_for(lambda: standin.stacks_named(cluster.name)
                              and fleet.holder(cluster.uuid), what="stack create sent")
    proc = fleet.procs[holder]
    if fault == "kill -9":
        proc.kill()
    else:
        os.killpg(proc.proc.pid, signal.SIGSTOP)
    started = time.monotonic()
    try:
        ConductorAPI().cluster_delete(ctx, cluster.uuid)
        _gone(cluster, timeout=30)
        assert time.monotonic() - started < 30
    finally:
        if fault == "hung":
            os.killpg(proc.proc.pid, signal.SIGCONT)
    _nothing_left(standin, cluster)
    _superseded_by_the_delete(cluster.uuid, [states.OP_CREATE])
    if fault == "hung":
        # its held answer comes, its retries stop: no second stack, no row brought back
        time.sleep(10)
        assert len(standin.state()["stacks"]) == 1
        assert support.cluster_status(cluster.uuid) == "GONE"
        _nothing_left(standin, cluster)


def test_parallel_deletes_make_one(conductor, standin):
    """terraform and an operator delete at once: one delete record, every caller named it."""
    ctx, cluster = _create(standin, create_seconds=60, delete_seconds=0.5)
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).stack_id,
                     what="stack being created")
    answers = []
    threads = [threading.Thread(target=lambda: answers.append(
        ConductorAPI().cluster_delete(ctx, cluster.uuid))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(answers)) == 1, answers
    _gone(cluster)
    assert [r.kind for r in operations.list_in_cluster(None, cluster.uuid)
            if r.kind == states.OP_DELETE] == [states.OP_DELETE]
    _nothing_left(standin, cluster)


def test_a_second_delete_takes_over_a_delete_that_hangs(fleet, standin):
    """The conductor running a delete waits for Heat's answer to its stack delete (held
    20 s, its client's timeout longer) while it renews its minute-long lease: a second
    DELETE, once the delete has noted no step for ``delete_takeover_after``, supersedes
    it; a conductor deletes whatever is left and the cluster is gone while the first call
    still waits. When its answer comes, the first conductor writes neither a status nor
    an outcome (its lease token is fenced)."""
    from oslo_config import cfg

    _long_leases(fleet)
    fleet.values = {**fleet.values, "heat_client": {"timeout": 40}}
    cfg.CONF.set_override("delete_takeover_after", 2, "conductor")
    fleet.start("c1")
    fleet.start("c2")
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(delete_seconds=0.5, hang_after={"method": "DELETE", "seconds": 20})
    api = ConductorAPI()
    first = api.cluster_delete(ctx, cluster.uuid)
    holder = support.wait_for(
        lambda: standin.stacks_named(cluster.name)[0]["stack_status"].startswith("DELETE")
        and fleet.holder(cluster.uuid), what="the stack delete sent, its answer held")
    started = time.monotonic()
    second = support.wait_for(
        lambda: (answer := api.cluster_delete(ctx, cluster.uuid)) != first and answer,
        timeout=15, interval=1, what="the hung delete taken over")
    _gone(cluster, timeout=15)
    assert time.monotonic() - started < 18  # the first call still waits for its answer
    superseded = operations.get_in_cluster(None, cluster.uuid, first)
    assert superseded.state == states.OPERATION_SUPERSEDED
    assert second in superseded.result_reason
    assert operations.get_in_cluster(None, cluster.uuid, second).state == \
        states.OPERATION_SUCCEEDED
    log = fleet.tmp_path / f"{holder}.log"
    support.wait_for(lambda: "outcome=lease-lost" in log.read_text(), timeout=40,
                     what="the first conductor stopped by the fence once answered")
    after = operations.get_in_cluster(None, cluster.uuid, first)
    assert (after.state, after.result_reason, after.finished_at) == (
        superseded.state, superseded.result_reason, superseded.finished_at)
    assert support.cluster_status(cluster.uuid) == "GONE"
    _nothing_left(standin, cluster)


def _extra_group(api, ctx, cluster):
    ng_uuid = str(uuid.uuid4())
    record = api.nodegroup_create(ctx, cluster.uuid, {
        "uuid": ng_uuid, "name": "extra", "cluster_id": cluster.uuid,
        "project_id": ctx.project_id, "node_count": 1, "role": "worker",
        "is_default": False})
    return ng_uuid, record


@pytest.mark.parametrize("where", ["heat", "conductor"])
def test_nodegroup_delete_stops_the_create_of_its_node_group(conductor, standin, where):
    """The node group's create runs (Heat creating its stack for a minute, or the
    conductor's stack create call hung with its stack made): its DELETE supersedes it at
    once, the node group's stack and row go, and the cluster ends UPDATE_COMPLETE with
    only its own stack."""
    ctx, cluster = _create(standin, create_seconds=0.3)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    standin.control(create_seconds=60, delete_seconds=0.5,
                    **({"hang_after": {"method": "POST", "seconds": 25}}
                       if where == "conductor" else {}))
    api = ConductorAPI()
    ng_uuid, create = _extra_group(api, ctx, cluster)
    if where == "heat":
        support.wait_for(lambda: nodegroups.get_by_uuid(None, ng_uuid).stack_id
                         and clusters.get_by_uuid(None, cluster.uuid).operation is None,
                         what="the node group's stack being created")
    else:
        support.wait_for(lambda: len(standin.state()["stacks"]) == 2
                         and standin.state()["control"]["hang_after"] is None,
                         what="the node group's stack create sent, its answer held")
    started = time.monotonic()
    delete = api.nodegroup_delete(ctx, cluster.uuid, ng_uuid)
    assert nodegroups.get_by_uuid(None, ng_uuid).status == states.DELETE_IN_PROGRESS
    assert operations.get_in_cluster(None, cluster.uuid, create).state == \
        states.OPERATION_SUPERSEDED
    support.wait_for(lambda: not nodegroups.list(None, {"cluster_id": cluster.uuid,
                                                        "name": "extra"}),
                     timeout=30, what="node group row destroyed")
    assert time.monotonic() - started < 30  # its create would have run a minute
    _complete(cluster.uuid, states.UPDATE_COMPLETE)
    assert operations.get_in_cluster(None, cluster.uuid, delete).state == \
        states.OPERATION_SUCCEEDED
    assert [s["stack_name"] for s in standin.state()["stacks"] if not s["deleted"]] == [
        standin.stacks_named(cluster.name)[0]["stack_name"]]
