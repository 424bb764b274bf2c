"""CA and credential rotation (recorded operations), CSR signing, CA show."""

from __future__ import annotations

import time
import types

from oslo_log import log as logging

from magnum_common import exception, states, utils
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db.clusters import clusters
from magnum_conductor.conf import CONF
from magnum_conductor.engine import lifecycle, notifications
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.lease import LeaseLost
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
        job.driver.rotate_ca_certificate(job.resources, job.view())
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


#: The trustee columns of a cluster row (what a credential rotation replaces).
TRUSTEE_COLUMNS = ("trustee_username", "trustee_user_id", "trustee_password", "trust_id")

#: Seconds after the stack request during which Heat may still show the previous result.
_SETTLE_SECONDS = 3.0


def run_rotate_credential(job: Job) -> None:
    """A new trustee and a trust from the rotating user (the creator may have left), who
    becomes the cluster's user (its trustor), the nodes given them by a stack update, then
    the previous trustee and trust retired.

    Order, each step resumable: the driver's refusal first (nothing created); the new pair
    in Keystone, then in one row write the new pair on the cluster and the previous one in
    the operation's arguments; the stack update through the new trust (the driver sends
    nothing twice); the wait until Heat says every node was replaced, i.e. booted with the
    new credentials and signalled; only then the previous trustee and trust deleted, with
    any trustee of the cluster an earlier failed rotation left. Both pairs are journaled on
    the record (the new one pending before Keystone makes it), so a cluster delete after a
    failed or killed rotation removes them too. Nodes that hold no trust
    (``[trust] cluster_user_trust = false``) get nothing: the pair is the conductor's alone
    and the previous one goes at once.
    """
    from magnum_conductor.identity import trust

    if not job.driver.supports("rotate_credential"):
        raise exception.NotSupported(operation="Rotating the cluster credentials")
    args = job.args
    with lifecycle.step(job, "trust") as step:
        if "retiring" in args:
            step.outcome = "present"
        else:
            view = job.view()
            job.driver.check_credential_rotation(job.resources, view)
            generation = utils.short_id(args["operation_id"])
            job.effect_pending("trust", trustee_username=trust.rotated_trustee_username(
                job.cluster, generation))
            new = trust.create_rotated_trustee_and_trust(
                job.context, job.cluster, generation,
                job.driver.trust_features(job.cluster.labels, view.template))
            retiring = {key: getattr(job.cluster, key) for key in (*TRUSTEE_COLUMNS,
                                                                    "user_id")}
            # the rotator is the trustor now: the cluster acts as them (certificate:get...)
            job.save(operation_args={**args, "retiring": retiring},
                     user_id=job.context.user_id, **new)
        # both pairs stay journaled: a failed rotation leaves both, the cluster delete
        # removes every pair its records name
        retired = job.args["retiring"]
        job.effect_done("trust", trustee_user_id=job.cluster.trustee_user_id,
                        trust_id=job.cluster.trust_id,
                        retiring={"trustee_user_id": retired.get("trustee_user_id"),
                                  "trust_id": retired.get("trust_id")})
    lifecycle.authenticate(job)
    with lifecycle.stack_request(job, "stack_update"):
        pushed = job.driver.rotate_credential(job.resources, job.view())
    if pushed:
        with lifecycle.step(job, "nodes"):
            _wait_for_stacks(job)
    with lifecycle.step(job, "trust_retire") as step:
        previous = types.SimpleNamespace(uuid=job.uuid, project_id=job.cluster.project_id,
                                         **job.args["retiring"])
        if not trust.retire_trustees(job.context, job.cluster, previous):
            step.outcome = "left-behind"
    if pushed:
        job.finish(status_reason="The nodes hold the new credentials.")
    else:
        args = job.args
        job.finish(status=args.get("previous_status"), status_reason=args.get("previous_reason"))


def _wait_for_stacks(job: Job) -> None:
    """Until Heat has finished the cluster's stack updates; their failure fails the
    rotation (the previous pair stays: nodes not yet replaced still hold it). Bounded by
    the operation's timeout; the lease's loss ends it."""
    ids = sorted(set(job.driver.stack_ids(job.view()).values()))
    sent = time.monotonic()
    seen_busy = False
    while True:
        poll = job.driver.stack_states(job.resources.session(), ids)
        found = [poll.states.get(stack_id) for stack_id in ids]
        busy = any(s is None or states.is_in_progress(s.status) for s in found)
        seen_busy = seen_busy or busy
        if not busy and (seen_busy or time.monotonic() - sent > _SETTLE_SECONDS):
            failed = [s for s in found if s is not None and s.status in states.STATUS_FAILED]
            if failed:
                raise exception.TrusteeOrTrustToClusterFailed(
                    f"Stack {failed[0].id} is {failed[0].status}: "
                    f"{failed[0].reason or 'no reason given'}; the previous trustee and "
                    "trust stay until a rotation completes.", cluster_uuid=job.uuid)
            return
        if job.lease.lost.wait(min(float(CONF.conductor.sync_interval), 5.0)):
            raise LeaseLost(cluster=job.uuid)


ROTATE_CREDENTIAL = Operation(
    name=states.OP_ROTATE_CREDENTIAL, gate=states.NODEGROUP_OPERABLE,
    in_progress=states.UPDATE_IN_PROGRESS, failed=states.UPDATE_FAILED,
    action=notifications.UPDATE,
    describe=lambda job: "Rotating the cluster's credentials.", run=run_rotate_credential)
