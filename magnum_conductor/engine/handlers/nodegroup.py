"""Node group handlers: create, update, delete of a non-default node group.

The API inserted (create) or validated the node group row before recording the operation;
the cluster goes UPDATE_IN_PROGRESS while the group's own stack is created, updated or
deleted, and the status sync aggregates the result back into the cluster.
"""

from __future__ import annotations

from magnum_common import states
from magnum_conductor.engine import lifecycle
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.operations import ANY_STATUS, Operation


def _ng_name(job: Job) -> str:
    try:
        return job.nodegroup(job.args["nodegroup_uuid"]).name
    except Exception:  # gone already: the uuid still names it
        return job.args.get("nodegroup_uuid", "?")


def run_create(job: Job) -> None:
    ng = job.nodegroup(job.args["nodegroup_uuid"])
    if ng.status != states.CREATE_IN_PROGRESS:
        job.save_nodegroup(ng.uuid, status=states.CREATE_IN_PROGRESS,
                           status_reason="Creating the node group's stack.")
    lifecycle.authenticate(job)
    with lifecycle.step(job, "stack_create"):
        job.effect_pending("stack_create", nodegroup=ng.uuid)
        view = job.view()
        stack_id = job.driver.create_nodegroup(job.resources, view, view.nodegroup(ng.uuid))
        job.save_nodegroup(ng.uuid, stack_id=stack_id)
        job.effect_done("stack_create", stack_id=stack_id)
    job.finish(status_reason=f"Creating node group {ng.name}.")


def run_update(job: Job) -> None:
    args = job.args
    ng = job.nodegroup(args["nodegroup_uuid"])
    job.save_nodegroup(ng.uuid, status=states.UPDATE_IN_PROGRESS,
                       status_reason="Updating the node group.", **(args.get("values") or {}))
    ng = job.nodegroup(ng.uuid)
    lifecycle.authenticate(job)
    view = job.view()
    with lifecycle.stack_request(job, "stack_update"):
        job.driver.update_nodegroup(job.resources, view, view.nodegroup(ng.uuid))
    job.finish(status_reason=f"Updating node group {ng.name}.")


def run_delete(job: Job) -> None:
    """Delete the node group's stack, found by id or by name (a create whose answer was
    lost); with no stack, the row goes at once."""
    args = job.args
    ng = job.nodegroup(args["nodegroup_uuid"])
    job.save_nodegroup(ng.uuid, status=states.DELETE_IN_PROGRESS,
                       status_reason="Deleting the node group.")
    lifecycle.authenticate(job, ng.uuid)
    with lifecycle.step(job, "stack_find", ng.uuid) as step:
        view = job.view()
        stack_id = job.driver.find_stacks(job.resources, view,
                                          [view.nodegroup(ng.uuid)]).get(ng.uuid)
        step.outcome = "found" if stack_id else "absent"
    if not stack_id:
        job.destroy_nodegroup(ng.uuid)
        job.finish(status=args.get("previous_status") or states.UPDATE_COMPLETE,
                   status_reason=f"Node group {ng.name} deleted.")
        return
    if stack_id != ng.stack_id:
        job.save_nodegroup(ng.uuid, stack_id=stack_id)
        view = job.view()
    with lifecycle.stack_request(job, "stack_delete"):
        job.driver.delete_nodegroup(job.resources, view, view.nodegroup(ng.uuid))
    job.finish(status_reason=f"Deleting node group {ng.name}.")


def _failed(status: str):
    def on_failure(job: Job, exc: Exception) -> None:
        try:
            job.save_nodegroup(job.args["nodegroup_uuid"], status=status,
                               status_reason=str(exc))
        except Exception:  # the row is gone: nothing to mark
            pass
    return on_failure


CREATE = Operation(
    name=states.OP_NODEGROUP_CREATE, gate=ANY_STATUS, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=None,
    describe=lambda job: f"Creating node group {_ng_name(job)}.", run=run_create,
    on_failure=_failed(states.CREATE_FAILED))
UPDATE = Operation(
    name=states.OP_NODEGROUP_UPDATE, gate=ANY_STATUS, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=None,
    describe=lambda job: f"Updating node group {_ng_name(job)}.", run=run_update,
    on_failure=_failed(states.UPDATE_FAILED))
DELETE = Operation(
    name=states.OP_NODEGROUP_DELETE, gate=ANY_STATUS, in_progress=states.UPDATE_IN_PROGRESS,
    failed=states.UPDATE_FAILED, action=None,
    describe=lambda job: f"Deleting node group {_ng_name(job)}.", run=run_delete,
    on_failure=_failed(states.DELETE_FAILED))
