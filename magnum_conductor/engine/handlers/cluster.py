"""Cluster lifecycle handlers: create, update (PATCH node_count), resize, upgrade, delete.

Each handler runs under the cluster's lease after operations.execute() passed the gate and
wrote the in-progress status; it must be safe to run again from the start (see
operations.py). The driver retries transient backend failures; what still fails surfaces
as a clear ``*_FAILED`` reason.
"""

from __future__ import annotations

from typing import Any

from oslo_log import log as logging

from magnum_common import states
from magnum_common.context import make_admin_context
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.drivers import settings
from magnum_common.drivers.view import TemplateRow
from magnum_conductor.conf import CONF
from magnum_conductor.engine import lifecycle, notifications
from magnum_conductor.engine.job import Job, Outcome
from magnum_conductor.engine.operations import ANY_STATUS, Operation

LOG = logging.getLogger(__name__)


def create_timeout(cluster: Any) -> int:
    return cluster.create_timeout or CONF.cluster_heat.create_timeout


def _assign_stack_ids(job: Job) -> None:
    view = job.view()
    mapping = job.driver.stack_ids(view)
    for ng in view.nodegroups:
        stack_id = mapping.get(ng.uuid)
        if stack_id and stack_id != ng.stack_id:
            job.save_nodegroup(ng.uuid, stack_id=stack_id)


# --- create ----------------------------------------------------------------------------
def run_create(job: Job) -> None:
    """The trust (Keystone), the stack (Heat), then the certificates (Barbican): Heat's
    build is the long part of a create, so nothing it does not need stands before it. The
    stack's parameters need the trustee, not the stored bundles: nodes fetch the CA through
    the API, retrying, long after Heat booted them, and a driver that hands the CA key over
    in the stack has the certificates stored first (``Resources.certificates_stored``).
    Barbican's dozen requests beside the trust or the stack POST slowed both on the 2-core
    machine. The operation ends once the certificates are stored: a failed store still
    fails the create."""
    _create_trust(job)
    lifecycle.authenticate(job)
    stored = False

    def certificates_stored() -> Any:
        nonlocal stored
        if not stored:
            _create_certificates(job)
            stored = True
        return job.cluster

    with lifecycle.step(job, "stack_create"):
        view = job.view()
        res = job.resources
        res.certificates_stored = certificates_stored
        job.effect_pending("stack_create")
        stack_id = job.driver.create_cluster(res, view, create_timeout(job.cluster))
        job.save(stack_id=stack_id)
        job.effect_done("stack_create", stack_id=stack_id)
        _assign_stack_ids(job)
    certificates_stored()
    job.finish(status_reason="Stack create sent to Heat; waiting for it to complete.")


def _create_trust(job: Job) -> None:
    from magnum_conductor.identity import trust

    with lifecycle.step(job, "trust") as step:
        if job.cluster.trust_id:
            step.outcome = "present"
        else:
            job.effect_pending("trust", trustee_username=trust.trustee_username(job.cluster))
            values = trust.create_trustee_and_trust(
                job.context, job.cluster,
                job.driver.trust_features(job.cluster.labels, TemplateRow.of(job.template)))
            job.save(**values)
        job.effect_done("trust", trustee_user_id=job.cluster.trustee_user_id,
                        trust_id=job.cluster.trust_id)


def _create_certificates(job: Job) -> None:
    from magnum_conductor.pki import cluster_certs

    with lifecycle.step(job, "certificates") as step:
        if job.cluster.ca_cert_ref:
            step.outcome = "present"
        else:
            _undo_unsaved_certificates(job)
            job.effect_pending("certificates", refs={})
            job.save(**cluster_certs.create_for_cluster(
                job.context or make_admin_context(), job.cluster,
                lambda field, ref: job.effect_pending("certificates", refs={field: ref})))
        job.effect_done("certificates")


def _undo_unsaved_certificates(job: Job) -> None:
    """Bundles an earlier run stored, journaled, and never saved on the row (its conductor
    was killed in between) are deleted before new ones are made."""
    from magnum_conductor.pki import cluster_certs

    stored = sorted({*((job.earlier.get("certificates") or {}).get("refs") or {}).values(),
                     *(cluster_certs.stored_by_name(job.cluster)
                       if "certificates" in job.earlier else ())})
    if stored:
        LOG.info("Cluster %s: deleting %d certificate bundles an interrupted run stored",
                 job.uuid, len(stored))
        cluster_certs.delete_refs(job.cluster, stored)


def fail_create(job: Job, exc: Exception) -> None:
    for ng in job.nodegroups():
        job.save_nodegroup(ng.uuid, status=states.CREATE_FAILED, status_reason=str(exc))


CREATE = Operation(
    name=states.OP_CREATE, gate=frozenset({None, states.CREATE_IN_PROGRESS}),
    in_progress=states.CREATE_IN_PROGRESS, failed=states.CREATE_FAILED,
    action=notifications.CREATE, describe=lambda job: "Creating the cluster.",
    run=run_create, on_failure=fail_create)


# --- resize / update -------------------------------------------------------------------
def _resize(job: Job, ng_uuid: str, node_count: int, nodes_to_remove: list[str],
            rollback: bool) -> None:
    args = job.args
    ng = job.nodegroup(ng_uuid)
    if "previous_node_count" not in args:
        job.save(operation_args={**args, "previous_node_count": ng.node_count})
    job.save_nodegroup(ng.uuid, node_count=node_count, status=states.UPDATE_IN_PROGRESS,
                       status_reason=f"Resizing to {node_count} nodes.")
    lifecycle.authenticate(job, ng_uuid)
    view = job.view()
    ng = view.nodegroup(ng_uuid)
    with lifecycle.stack_request(job, "stack_update", ng_uuid):
        job.driver.resize_cluster(job.resources, view, ng, node_count,
                                  list(nodes_to_remove), rollback)
    job.finish(status_reason=f"Resizing node group {ng.name} to {node_count} nodes.")


def _restore_count(job: Job, exc: Exception) -> None:
    args = job.args
    ng_uuid = args.get("nodegroup_uuid") or args.get("resized_nodegroup")
    if not ng_uuid:
        return
    values: dict[str, Any] = {"status": states.UPDATE_FAILED, "status_reason": str(exc)}
    if args.get("previous_node_count") is not None:
        values["node_count"] = args["previous_node_count"]
    job.save_nodegroup(ng_uuid, **values)


def run_resize(job: Job) -> None:
    args = job.args
    _resize(job, args["nodegroup_uuid"], int(args["node_count"]),
            args.get("nodes_to_remove") or [], bool(args.get("rollback")))


RESIZE = Operation(
    name=states.OP_RESIZE, gate=states.RESIZABLE, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=notifications.UPDATE,
    describe=lambda job: f"Resizing to {job.args.get('node_count')} nodes.",
    run=run_resize, on_failure=_restore_count)


def run_update(job: Job) -> None:
    """PATCH: health fields are saved as given; a node_count change resizes default-worker."""
    args = job.args
    health = {key: args[key] for key in ("health_status", "health_status_reason")
              if args.get(key) is not None}
    worker = settings.default_worker(job.nodegroups())
    node_count = args.get("node_count")
    if node_count is None or int(node_count) == args.get("previous_node_count",
                                                            worker.node_count):
        job.finish(status=args.get("previous_status"),
                   status_reason=args.get("previous_reason"), **health)
        return
    if health:
        job.save(**health)
    job.save(operation_args={**job.args, "resized_nodegroup": worker.uuid})
    _resize(job, worker.uuid, int(node_count), [], bool(args.get("rollback")))


UPDATE = Operation(
    name=states.OP_UPDATE, gate=states.STABLE, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=notifications.UPDATE,
    describe=lambda job: "Updating the cluster.", run=run_update,
    on_failure=_restore_count)


# --- upgrade ---------------------------------------------------------------------------
def run_upgrade(job: Job) -> None:
    args = job.args
    new_template = TemplateRow.of(
        cluster_templates.get_by_uuid(None, args["cluster_template_uuid"]))
    ng_uuid = job.nodegroup(args["nodegroup_uuid"]).uuid
    lifecycle.authenticate(job)
    view = job.view()
    ng = view.nodegroup(ng_uuid)
    with lifecycle.stack_request(job, "stack_update"):
        job.driver.upgrade_cluster(job.resources, view, new_template, ng,
                                   int(args.get("max_batch_size") or 1))
    # Later updates build stacks from the rows: record the versions the nodes now run.
    view = job.view()
    rolled = [g for g in view.nodegroups
              if (g.is_default if ng.is_default else g.uuid == ng.uuid)]
    for group in rolled:
        job.save_nodegroup(group.uuid, labels=job.driver.upgraded_labels(group, new_template),
                           **({"status": states.UPDATE_IN_PROGRESS, "status_reason":
                               f"Upgrading to cluster template {new_template.name}."}
                              if group.uuid == ng.uuid else {}))
    values: dict[str, Any] = {}
    if ng.is_default:
        values["cluster_template_id"] = new_template.uuid
        values["labels"] = job.driver.upgraded_labels(view.cluster, new_template)
    job.finish(status_reason=f"Upgrading node group {ng.name} to cluster template "
               f"{new_template.name}.", **values)


def fail_upgrade(job: Job, exc: Exception) -> None:
    ng_uuid = job.args.get("nodegroup_uuid")
    if ng_uuid:
        job.save_nodegroup(ng_uuid, status=states.UPDATE_FAILED, status_reason=str(exc))


UPGRADE = Operation(
    name=states.OP_UPGRADE, gate=states.STABLE, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=notifications.UPDATE,
    describe=lambda job: "Upgrading the cluster.", run=run_upgrade, on_failure=fail_upgrade)


# --- delete ----------------------------------------------------------------------------
def run_delete(job: Job) -> None:
    """Delete whatever exists: the stacks are looked up (by name when no id was recorded)
    and their ids recorded for the sync, which waits for them to go. A stack create that
    was sent and never confirmed, whose stack is not there (yet), is left to the sweeper
    as a stack orphan."""
    from magnum_conductor.engine import cleanup

    ngs = job.nodegroups()
    job.save_nodegroups(ngs, status=states.DELETE_IN_PROGRESS,
                        status_reason="Deleting the cluster.")
    lifecycle.authenticate(job)
    with lifecycle.step(job, "stack_find") as step:
        found = job.driver.find_stacks(job.resources, job.view(ngs))
        step.outcome = "found" if found else "absent"
        if cleanup.watch_unconfirmed_stacks(job, ngs, found):
            step.outcome += "+watched"
    if not found:
        complete_delete(job)
        return
    main = next((found[ng.uuid] for ng in ngs if ng.is_default and ng.uuid in found), None)
    if main and main != job.cluster.stack_id:
        job.save(stack_id=main)
    for ng in ngs:
        if found.get(ng.uuid, ng.stack_id) != ng.stack_id:
            job.save_nodegroup(ng.uuid, stack_id=found[ng.uuid])
    with lifecycle.stack_request(job, "stack_delete"):
        job.driver.delete_cluster(job.resources, job.view())
    job.finish(status_reason="Stack delete sent to Heat; waiting for it to complete.")


def complete_delete(job: Job) -> None:
    """Heat says the stacks are gone: remove the trust, the certificates, then the rows."""
    from magnum_conductor.engine import cleanup

    context = job.context or make_admin_context()
    cluster = job.cluster
    ngs = job.nodegroups()
    with lifecycle.step(job, "trust_delete", operation=states.OP_DELETE) as step:
        if not cleanup.remove_identity(context, cluster):
            step.outcome = "orphaned"
    with lifecycle.step(job, "certificates_delete", operation=states.OP_DELETE) as step:
        if not cleanup.remove_certificates(context, cluster):
            step.outcome = "orphaned"
    with lifecycle.step(job, "rows_delete", operation=states.OP_DELETE):
        job.destroy(Outcome(states.OPERATION_SUCCEEDED, "The cluster is deleted."))
    LOG.info("Cluster %s deleted", cluster.uuid)
    notifications.emit(context, notifications.DELETE, notifications.SUCCESS, cluster, ngs)


def fail_delete(job: Job, exc: Exception) -> None:
    for ng in job.nodegroups():
        job.save_nodegroup(ng.uuid, status=states.DELETE_FAILED, status_reason=str(exc))


DELETE = Operation(
    name=states.OP_DELETE, gate=ANY_STATUS, in_progress=states.DELETE_IN_PROGRESS,
    failed=states.DELETE_FAILED, action=notifications.DELETE,
    describe=lambda job: "Deleting the cluster.", run=run_delete, on_failure=fail_delete)
