"""Effects recorded before they happen, and clean-up that never leaks (issue 12, point 4):
real conductor processes killed with -9 between an effect and its confirmation, Keystone
refusing the deletes of a cluster delete, orphans and their sweeper."""

from __future__ import annotations

import pytest
import support
from oslo_config import cfg

from magnum_common import states
from magnum_common.cmd.status import Checks, Code
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations
from magnum_common.db.orphans import orphans
from magnum_common.db.x509keypairs import x509keypairs
from magnum_conductor.pki import cert_manager

CONF = cfg.CONF


def _record(cluster_uuid: str):
    [record] = operations.list_in_cluster(None, cluster_uuid)
    return record


def _created():
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    return ctx, cluster


def test_kill_between_trust_and_its_record_leaves_one_trustee_and_trust(fleet, standin):
    """The trust is made in Keystone, the conductor dies before the row has it: the effect
    stays journaled as pending, the second conductor finishes it with the same trustee
    and trust (none made twice, none leaked) and confirms every effect."""
    standin.control(create_seconds=0.5, hang_after={"method": "POST trust", "seconds": 120})
    fleet.start("c1")
    fleet.start("c2")
    ctx, cluster = _created()
    support.wait_for(lambda: standin.state()["trusts"] and fleet.holder(cluster.uuid),
                     what="trust made in Keystone")
    record = _record(cluster.uuid)
    assert record.effects["trust"]["state"] == states.EFFECT_PENDING
    assert record.effects["trust"]["trustee_username"] == f"{cluster.uuid}_{ctx.project_id}"
    assert clusters.get_by_uuid(None, cluster.uuid).trust_id is None
    fleet.procs[fleet.holder(cluster.uuid)].kill()
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
                           == states.CREATE_COMPLETE and c, timeout=60, what="CREATE_COMPLETE")
    state = standin.state()
    assert len(state["users"]) == 1 and len(state["trusts"]) == 1
    assert row.trust_id == state["trusts"][0]["id"]
    assert row.trustee_user_id == state["users"][0]["id"]
    effects = _record(cluster.uuid).effects
    assert {name: e["state"] for name, e in effects.items()} == {
        "trust": states.EFFECT_DONE, "certificates": states.EFFECT_DONE,
        "stack_create": states.EFFECT_DONE}
    assert effects["stack_create"]["stack_id"] == row.stack_id
    assert len(standin.stacks_named(cluster.name)) == 1


def test_delete_after_a_kill_between_trust_and_its_record_leaves_nothing(fleet, standin):
    """The create's conductor dies after Keystone made the trustee and the trust, before
    the row had them, and a DELETE takes the cluster over: the journal names the trustee,
    so the delete finds it by name and removes it and the trust delegated to it."""
    standin.control(hang_after={"method": "POST trust", "seconds": 120})
    fleet.start("c1")
    ctx, cluster = _created()
    support.wait_for(lambda: standin.state()["trusts"] and fleet.holder(cluster.uuid),
                     what="trust made in Keystone")
    fleet.procs["c1"].kill()
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    fleet.start("c2")
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE", timeout=60,
                     what="cluster row destroyed")
    state = standin.state()
    assert state["users"] == [] and state["trusts"] == []
    assert standin.stacks_named(cluster.name) == []
    assert orphans.list(None) == []


def test_bundles_a_killed_run_stored_are_undone(conductor, standin):
    """A kill -9 after two of the four bundles were stored (journaled one by one, never
    saved on the row): the resumed create deletes them before storing the four it keeps."""
    standin.control(create_seconds=0.3)
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    owner = support.RequestContext(user_id=ctx.user_id, project_id=ctx.project_id)
    backend = cert_manager.get_backend()
    stray = {field: backend.store_cert(owner, "CERT", "KEY", name=f"{cluster.uuid} {field}")
             for field in ("ca_cert_ref", "etcd_ca_cert_ref")}
    record = _record(cluster.uuid)
    operations.effect(record.uuid, "certificates", states.EFFECT_PENDING, refs=stray)
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    row = support.wait_for(lambda: (c := clusters.get_by_uuid(None, cluster.uuid)).status
                           == states.CREATE_COMPLETE and c, what="CREATE_COMPLETE")
    kept = {row.ca_cert_ref, row.etcd_ca_cert_ref, row.front_proxy_ca_cert_ref,
            row.magnum_cert_ref}
    assert {kp.uuid for kp in x509keypairs.list(None)} == kept
    assert not kept & set(stray.values())
    effect = _record(cluster.uuid).effects["certificates"]
    assert effect["state"] == states.EFFECT_DONE
    assert set(effect["refs"].values()) >= kept


@pytest.fixture
def quick_cleanup(conductor_options):
    CONF.set_override("cleanup_attempts", 2, "conductor")
    CONF.set_override("cleanup_backoff", 0.2, "conductor")
    CONF.set_override("orphan_sweep_interval", 1, "conductor")


def test_delete_keystone_refuses_orphans_then_sweeper_removes(quick_cleanup, conductor,
                                                             standin):
    """Keystone fails every delete: the cluster delete retries, records the trust and the
    trustee as orphans and still completes; magnum-status reports them; once Keystone
    answers again the sweeper removes both and drops the orphans."""
    ctx, cluster = _complete(standin, create_seconds=0.3, delete_seconds=0.3)
    row = clusters.get_by_uuid(None, cluster.uuid)
    standin.control(keystone_fail_deletes=10_000)
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE",
                     what="cluster row destroyed")
    left = {(o.kind, o.ref, o.cluster_id) for o in orphans.list(None)}
    assert left == {("trust", row.trust_id, cluster.uuid),
                    ("trustee", row.trustee_user_id, cluster.uuid)}
    assert len(standin.state()["trusts"]) == 1 and len(standin.state()["users"]) == 1
    assert x509keypairs.list(None) == []  # what could go, went
    deletes = standin.state()["requests"]
    assert deletes["keystone DELETE /v3/OS-TRUST/trusts/ID"] >= 2  # retried
    report = Checks().check_orphans()
    assert report.code == Code.WARNING
    assert "2 orphan(s)" in report.details and row.trust_id in report.details
    # the sweeper tries (and fails) meanwhile: the orphans stay, their attempts counted
    support.wait_for(lambda: sorted((o.kind, o.attempts > 2) for o in orphans.list(None))
                     == [("trust", True), ("trustee", True)], what="failed sweeps counted")
    standin.control(keystone_fail_deletes=0)
    support.wait_for(lambda: not orphans.list(None), timeout=30, what="orphans swept")
    state = standin.state()
    assert state["trusts"] == [] and state["users"] == []
    assert Checks().check_orphans().code == Code.SUCCESS


def _complete(standin, **control):
    """A cluster created on the stand-in (with ``control``), CREATE_COMPLETE."""
    standin.control(**control)
    ctx, cluster = _created()
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.CREATE_COMPLETE,
                     what="CREATE_COMPLETE")
    return ctx, cluster


def _gone(cluster_uuid: str) -> None:
    support.wait_for(lambda: support.cluster_status(cluster_uuid) == "GONE", timeout=60,
                     what="cluster row destroyed")


def _delete_record(cluster_uuid: str):
    return next(r for r in operations.list_in_cluster(None, cluster_uuid)
                if r.kind == states.OP_DELETE)


@pytest.fixture
def stack_delete_retries(conductor_options):
    CONF.set_override("stack_delete_attempts", 3, "conductor")
    CONF.set_override("stack_delete_backoff", 3.0, "conductor")


def test_a_stack_delete_heat_fails_is_sent_again_and_the_cluster_goes(
        stack_delete_retries, conductor, standin):
    """Heat fails the stack delete (DELETE_FAILED): the cluster stays DELETE_IN_PROGRESS
    with the failure and the next attempt in its reason and in the running delete
    record's progress; after the back-off the delete asks Heat again, the stack goes, and
    only then the row (issue 12, gap b)."""
    ctx, cluster = _complete(standin, create_seconds=0.3, delete_seconds=0.5)
    standin.control(fail_stacks={"DELETE": "*"})
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    record = support.wait_for(lambda: "Heat failed to delete the stacks" in (
        (r := _delete_record(cluster.uuid)).progress or "") and r, what="the failure seen")
    assert "attempt 2 of 3" in record.progress
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert row.status == states.DELETE_IN_PROGRESS
    assert "deleting them again" in row.status_reason
    assert record.state == states.OPERATION_RUNNING
    standin.control(fail_stacks={})
    _gone(cluster.uuid)
    record = _delete_record(cluster.uuid)
    assert record.state == states.OPERATION_SUCCEEDED
    assert record.effects["stack_delete"]["attempts"] == 2
    assert [s["deleted"] for s in standin.stacks_named(cluster.name)] == [True]
    assert standin.state()["requests"]["heat DELETE /stacks"] >= 2


def test_a_stack_delete_heat_keeps_failing_ends_delete_failed_with_the_row_kept(
        stack_delete_retries, conductor, standin):
    """Every attempt fails: after ``stack_delete_attempts`` the cluster is DELETE_FAILED,
    its reason saying how often Heat failed, the record failed with it; the row stays (the
    stack still exists) for another DELETE, which then succeeds."""
    CONF.set_override("stack_delete_attempts", 2, "conductor")
    CONF.set_override("stack_delete_backoff", 0.2, "conductor")
    ctx, cluster = _complete(standin, create_seconds=0.3, delete_seconds=0.3)
    standin.control(fail_stacks={"DELETE": "*"})
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.DELETE_FAILED,
                     timeout=60, what="DELETE_FAILED")
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert "Heat failed the stack delete 2 times" in row.status_reason
    record = _delete_record(cluster.uuid)
    assert record.state == states.OPERATION_FAILED
    assert "2 times" in record.result_reason
    assert standin.state()["requests"]["heat DELETE /stacks"] == 2
    standin.control(fail_stacks={})
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    _gone(cluster.uuid)
    assert [s["deleted"] for s in standin.stacks_named(cluster.name)] == [True]


@pytest.fixture
def nodes_hold_the_trust():
    CONF.set_override("cluster_user_trust", True, "trust")
    yield
    CONF.clear_override("cluster_user_trust", "trust")


def test_the_delete_removes_the_trustees_a_failed_rotation_left(nodes_hold_the_trust,
                                                                conductor, standin):
    """A credential rotation whose stack update failed keeps both pairs (the nodes may
    hold either); the cluster delete removes both trustees and both trusts, nothing is
    an orphan (issue 12, gap e)."""
    ctx, cluster = _complete(standin, create_seconds=0.3, update_seconds=0.3, delete_seconds=0.3)
    first = clusters.get_by_uuid(None, cluster.uuid)
    standin.control(fail_stacks={"UPDATE": "*"})
    ConductorAPI().credential_rotate(support.requester(user="another-member"), cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.UPDATE_FAILED,
                     what="UPDATE_FAILED")
    row = clusters.get_by_uuid(None, cluster.uuid)
    state = standin.state()
    assert {u["id"] for u in state["users"]} == {first.trustee_user_id, row.trustee_user_id}
    assert {t["id"] for t in state["trusts"]} == {first.trust_id, row.trust_id}
    rotation = next(r for r in operations.list_in_cluster(None, cluster.uuid)
                    if r.kind == states.OP_ROTATE_CREDENTIAL)
    assert rotation.effects["trust"]["retiring"] == {
        "trustee_user_id": first.trustee_user_id, "trust_id": first.trust_id}
    standin.control(fail_stacks={})
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    _gone(cluster.uuid)
    state = standin.state()
    assert state["users"] == [] and state["trusts"] == []
    assert orphans.list(None) == []


def test_a_stack_create_heat_carries_out_after_the_delete_is_swept(quick_cleanup, conductor,
                                                                   standin):
    """Heat carries the stack create out late (the POST waits before it is processed): a
    DELETE meanwhile finds no stack and the row goes, the journaled, unconfirmed create
    is recorded as a stack orphan (magnum-status lists it), the sweeper deletes the stack
    once it appears and drops the orphan once the create could no longer land (issue 12,
    gap a)."""
    CONF.set_override("timeout", 15, "heat_client")
    CONF.set_override("heat_attempts", 1, "conductor")
    standin.control(create_seconds=0.3, delete_seconds=0.3,
                    hang_before={"method": "POST", "seconds": 8})
    ctx, cluster = _created()
    support.wait_for(lambda: standin.state()["requests"].get("heat POST /stacks"),
                     what="the stack create sent")
    ConductorAPI().cluster_delete(ctx, cluster.uuid)
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE",
                     what="cluster row destroyed")
    assert standin.stacks_named(cluster.name) == [], "the create landed before the delete"
    [orphan] = orphans.list(None)
    assert (orphan.kind, orphan.cluster_id) == ("stack", cluster.uuid)
    assert orphan.ref.startswith(cluster.name)
    report = Checks().check_orphans()
    assert report.code == Code.WARNING and f"stack {orphan.ref}" in report.details
    support.wait_for(lambda: standin.stacks_named(cluster.name), timeout=20,
                     what="the late stack made")
    support.wait_for(lambda: not orphans.list(None), timeout=40, what="stack orphan swept")
    assert [s["deleted"] for s in standin.stacks_named(cluster.name)] == [True]
    assert Checks().check_orphans().code == Code.SUCCESS
