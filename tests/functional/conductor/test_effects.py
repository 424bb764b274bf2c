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
    standin.control(create_seconds=0.3, delete_seconds=0.3)
    ctx, cluster = _created()
    support.wait_for(lambda: support.cluster_status(cluster.uuid) == states.CREATE_COMPLETE,
                     what="CREATE_COMPLETE")
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
