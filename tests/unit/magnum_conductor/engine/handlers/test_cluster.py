"""The cluster handlers as a conductor runs them (SQLite, real leases, certificates in the
database): a PATCH that changes no node count ends without stack work; a resize or PATCH
that cannot authenticate fails and puts the node count back; a create that cannot
authenticate stores no certificates (they come after the stack) and fails every node group
with the reason; an upgrade marks its node group failed; the end of a delete removes
certificates and rows and settles the record."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import exception, states
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations as records
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.handlers import cluster
from magnum_conductor.pki import cert_manager, cluster_certs
from tests.unit.magnum_common.db.support import ALICE, make_cluster
from tests.unit.magnum_conductor.engine.handlers.support import (
    created,
    record,
    run,
    use_database_certificates,
)

CONF = cfg.CONF
NO_IDENTITY = "no trust and no requester context"


def _worker(uuid: str):
    return nodegroups.get_in_cluster(None, uuid, "default-worker")


def _resizing(uuid: str, count: int) -> None:
    """What the API writes with a resize: the target group moves at once."""
    nodegroups.compare_and_swap(None, _worker(uuid).uuid, {}, {
        "node_count": count, "status": states.UPDATE_IN_PROGRESS})


def test_a_patch_without_a_new_node_count_ends_with_the_health_report(db):
    row = created()
    done = record(row.uuid, states.OP_UPDATE, {
        "node_count": 2, "previous_node_count": 2, "health_status": states.HEALTHY,
        "health_status_reason": {"api": "ok"}})
    run(row.uuid)
    after = clusters.get_by_uuid(None, row.uuid)
    assert (after.status, after.status_reason, after.operation) == (
        states.CREATE_COMPLETE, "Stack CREATE completed", None)
    assert (after.health_status, after.health_status_reason) == (states.HEALTHY, {"api": "ok"})
    assert records.get_by_uuid(None, done).state == states.OPERATION_SUCCEEDED
    assert _worker(row.uuid).node_count == 2


@pytest.mark.parametrize("operation", [states.OP_RESIZE, states.OP_UPDATE])
def test_a_resize_that_cannot_authenticate_fails_and_puts_the_count_back(db, operation):
    row = created(workers=2)
    worker = _worker(row.uuid)
    args = {"node_count": 5, "previous_node_count": 2}
    if operation == states.OP_RESIZE:
        args.update(nodegroup_uuid=worker.uuid, nodes_to_remove=[])
    _resizing(row.uuid, 5)
    done = record(row.uuid, operation, args, worker.uuid)
    with pytest.raises(exception.AuthenticationFailed):
        run(row.uuid)
    after = clusters.get_by_uuid(None, row.uuid)
    assert (after.status, after.operation) == (states.UPDATE_FAILED, None)
    assert NO_IDENTITY in after.status_reason
    worker = _worker(row.uuid)
    assert (worker.node_count, worker.status) == (2, states.UPDATE_FAILED)
    assert NO_IDENTITY in worker.status_reason
    failed = records.get_by_uuid(None, done)
    assert failed.state == states.OPERATION_FAILED and NO_IDENTITY in failed.result_reason


def test_a_create_that_cannot_authenticate_stores_no_certificates_and_fails_every_group(db):
    use_database_certificates()
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, {"trust_id": "trust-of-an-earlier-run"})
    earlier = cluster_certs.create_for_cluster(ALICE, row)  # stored, never saved on the row
    Executor("cond-a").with_lease(
        row.uuid, lambda job: job.effect_pending("certificates", refs=earlier))
    with pytest.raises(exception.AuthenticationFailed):
        run(row.uuid)
    after = clusters.get_by_uuid(None, row.uuid)
    assert (after.status, after.operation) == (states.CREATE_FAILED, None)
    assert NO_IDENTITY in after.status_reason
    groups = nodegroups.list(None, {"cluster_id": row.uuid})
    assert {ng.status for ng in groups} == {states.CREATE_FAILED}
    assert all(NO_IDENTITY in ng.status_reason for ng in groups)
    # the certificates come after the stack: none were made for a stack never sent, and
    # the interrupted run's journaled bundles stay for the delete (engine/cleanup.py)
    assert not any(getattr(after, field) for field in earlier)
    backend = cert_manager.get_backend()
    assert all(backend.get_cert(ALICE, ref).certificate.startswith("-----BEGIN")
               for ref in earlier.values())
    assert cluster.create_timeout(after) == CONF.cluster_heat.create_timeout  # none asked
    clusters.update(None, row.uuid, {"create_timeout": 45})
    assert cluster.create_timeout(clusters.get_by_uuid(None, row.uuid)) == 45


def test_an_upgrade_that_cannot_authenticate_fails_its_node_group(db):
    row = created()
    template = cluster_templates.create(None, {"name": "next", "project_id": ALICE.project_id,
                                               "coe": "kubernetes", "image_id": "fcos"})
    worker = _worker(row.uuid)
    record(row.uuid, states.OP_UPGRADE, {"cluster_template_uuid": template.uuid,
                                         "nodegroup_uuid": worker.uuid, "max_batch_size": 1})
    with pytest.raises(exception.AuthenticationFailed):
        run(row.uuid)
    after = clusters.get_by_uuid(None, row.uuid)
    assert after.status == states.UPDATE_FAILED and after.cluster_template_id != template.uuid
    assert _worker(row.uuid).status == states.UPDATE_FAILED


def test_the_end_of_a_delete_removes_certificates_and_rows_and_settles_the_record(db):
    use_database_certificates()
    row = created()
    refs = cluster_certs.create_for_cluster(ALICE, row)
    clusters.update(None, row.uuid, refs)
    done = record(row.uuid, states.OP_DELETE, {}, status=states.DELETE_IN_PROGRESS)
    records.start(done)
    Executor("cond-a").with_lease(row.uuid, cluster.complete_delete)
    with pytest.raises(exception.ClusterNotFound):
        clusters.get_by_uuid(None, row.uuid)
    assert nodegroups.list(None, {"cluster_id": row.uuid}) == []
    for ref in refs.values():
        with pytest.raises(exception.CertificateNotFound):
            cert_manager.get_backend().get_cert(ALICE, ref)
    settled = records.get_by_uuid(None, done)
    assert (settled.state, settled.result_reason) == (states.OPERATION_SUCCEEDED,
                                                      "The cluster is deleted.")
