"""CA rotation (a recorded operation), CSR signing, CA show and credential rotation."""

from __future__ import annotations

from typing import Any

from oslo_log import log as logging

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db.clusters import clusters
from magnum_conductor.engine import lifecycle, notifications
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.operations import Operation

LOG = logging.getLogger(__name__)

def run_rotate_ca(job: Job) -> None:
    """New CAs first (nodes fetch them from Magnum while the stack update runs), then Heat.

    A driver that cannot rotate is refused before any certificate changes; the new refs are
    committed together with a ``ca_rotated`` mark so a replay does not rotate twice.
    """
    from magnum_conductor.pki import cluster_certs

    if not job.driver.supports("rotate_ca_certificate"):
        raise exception.NotSupported(operation="Rotating the CA certificate")
    with lifecycle.step(job, "certificates") as step:
        if job.args.get("ca_rotated"):
            step.outcome = "present"
        else:
            def commit(refs: dict[str, str]) -> None:
                job.save(operation_args={**job.args, "ca_rotated": True}, **refs)

            cluster_certs.rotate_ca(job.context or make_admin_context(), job.cluster,
                                    commit=commit)
    lifecycle.authenticate(job)
    with lifecycle.stack_request(job, "stack_update"):
        job.driver.rotate_ca_certificate(job.resources, job.cluster,
                                         job.template, job.nodegroups())
    job.finish(status_reason="Rotating the cluster's CA certificates.")


ROTATE_CA = Operation(
    name=states.OP_ROTATE_CA, gate=states.STABLE, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=notifications.UPDATE,
    describe=lambda job: "Rotating the CA certificates.", run=run_rotate_ca,
    notify_pending=False)


def sign_certificate(context: RequestContext, cluster_uuid: str, csr: str,
                     ca_cert_type: str | None) -> str:
    from magnum_conductor.pki import cluster_certs

    cluster = clusters.get_by_uuid(None, cluster_uuid)
    return cluster_certs.sign(context, cluster, csr, ca_cert_type)


def get_ca_certificate(context: RequestContext, cluster_uuid: str,
                       ca_cert_type: str | None) -> str:
    from magnum_conductor.pki import cluster_certs

    cluster = clusters.get_by_uuid(None, cluster_uuid)
    return cluster_certs.get_ca(context, cluster, ca_cert_type)


def credential_rotate(job: Job) -> Any:
    """Gate on the node groups' state, then let the driver rotate (NotSupported if it can't)."""
    if job.cluster.status not in states.NODEGROUP_OPERABLE:
        raise exception.InvalidState(
            f"Cluster {job.uuid} is {job.cluster.status}; credentials cannot be rotated now.")
    return job.driver.rotate_credential(job.resources, job.cluster)
