"""Running a recorded operation: gate, begin, act, finish or fail (the state machine).

Every operation the API records on a cluster row is described by an ``Operation``: the
statuses it may start from, the in-progress status it moves the cluster to, the failed
status it ends in on error, the notification action, and the handler that does the work.

Operations are resumable. The first run checks the gate and writes the in-progress status
together with ``phase = started`` into the recorded arguments; a replay (cast lost,
conductor died mid-way) sees the phase and skips the gate, and every handler step is
idempotent (trust / certificates are created only when missing, the driver's stack create is
idempotent by stack name, a stack update Heat already runs answers 409 and counts as sent).
The operation is cleared in the same UPDATE that records its outcome; from then on the
status sync follows Heat.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Callable
from typing import Any

import requests
from keystoneauth1 import exceptions as ks_exc
from oslo_log import log as logging

from magnum_common import exception, outbound, states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.context import make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db.operations import operations as records
from magnum_conductor.conf import operation_timeout
from magnum_conductor.engine import lifecycle, notifications
from magnum_conductor.engine.job import Job, Outcome
from magnum_conductor.engine.lease import LeaseLost

LOG = logging.getLogger(__name__)

ANY_STATUS = frozenset(states.ALL_STATUSES) | {None}


@dataclasses.dataclass(frozen=True)
class Operation:
    name: str
    gate: frozenset[str | None]
    in_progress: str
    failed: str
    #: Notification action (None: the operation emits nothing).
    action: str | None
    #: What the in-progress status_reason says while it runs.
    describe: Callable[[Job], str]
    run: Callable[[Job], Any]
    #: Extra clean-up of node groups etc. when the operation fails (after the status).
    on_failure: Callable[[Job, Exception], None] | None = None
    #: Notify failure only (CA rotation emits no pending).
    notify_pending: bool = True


def _reason(exc: Exception) -> str:
    """The error as the status_reason, with its cause (e.g. why a trust was refused); a
    request that got no answer names its service."""
    text = str(exc).strip() or type(exc).__name__
    unanswered = outbound.unanswered()
    if unanswered is not None and unanswered.service not in text and _no_answer(exc):
        text = f"{unanswered.describe()}: {text}"
    cause = exc.__cause__
    if cause is not None and str(cause).strip() and str(cause) not in text:
        text = f"{text}: {str(cause).strip()}"
    return text if len(text) < 4000 else text[:4000] + "..."


def _no_answer(exc: BaseException | None) -> bool:
    """Whether a timeout or a failed connection is behind ``exc`` (its causes included)."""
    for _ in range(6):
        if exc is None:
            return False
        if isinstance(exc, (ks_exc.ConnectionError, requests.RequestException, OSError)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def execute(job: Job, op: Operation | None) -> Any:
    """Run ``op``, the operation recorded on ``job.cluster`` (None: a name no handler
    knows); exceptions of calls propagate."""
    name = job.cluster.operation
    if op is None:
        LOG.error("Cluster %s records unknown operation %r; clearing it", job.uuid, name)
        args = job.args
        reason = f"Unknown operation {name!r}."
        job.finish(_failed(args, reason))
        _outcome(job, states.OPERATION_FAILED, reason, args)
        return None
    args = job.args
    if args.get("phase") != "started":
        _begin(job, op, args)
    else:
        LOG.info("Resuming %s of cluster %s", name, job.uuid)
    outbound.forget()
    outbound.act_for(getattr(job.context, "request_id", None))
    seconds = operation_timeout(name)
    job.lease.limit(seconds, lambda lease: overrun(job, op, seconds))
    try:
        with lifecycle.operation(job, reason=_reason):
            result = op.run(job)
    except LeaseLost:
        raise
    except exception.NotSupported as exc:
        revert(job, _failed(args, _reason(exc)))
        _outcome(job, states.OPERATION_FAILED, _reason(exc), args)
        raise
    except Exception as exc:
        if db_api.connection_lost(exc):
            # Not the operation's failure: it stays recorded, its lease is freed (or ages
            # out), and the reconciler runs it again from its journal.
            LOG.warning("%s of cluster %s lost its database connection (%s); it stays "
                        "recorded and is resumed", name, job.uuid, exc)
            raise
        LOG.debug("%s of cluster %s failed", name, job.uuid, exc_info=True)
        fail(job, op, exc)
        raise
    finally:
        outbound.act_for(None)
    _handed_over(job, args.get("operation_id"))
    return result


def _begin(job: Job, op: Operation, args: dict[str, Any]) -> None:
    """First run: in-progress status (the API normally wrote it already) and the record
    marked running. An operation recorded without its status move (by a release before the
    operation records) is gated here, as it was then."""
    previous: dict[str, Any] = {}
    if "previous_status" not in args:
        if job.cluster.status not in op.gate:
            refusal = exception.OperationRefused(operation=job.cluster.operation,
                                                 cluster=job.uuid, status=job.cluster.status)
            LOG.warning("%s", refusal)
            job.finish(_failed(args, str(refusal)),
                       updated_at=job.cluster.updated_at)
            _outcome(job, states.OPERATION_FAILED, str(refusal), args)
            notifications.emit(job.context, op.action, notifications.FAILURE, job.cluster,
                               job.nodegroups())
            raise refusal
        previous = {"previous_status": job.cluster.status,
                    "previous_reason": job.cluster.status_reason,
                    "previous_updated_at": _isotime(job.cluster.updated_at)}
    describe = op.describe(job)
    job.save(status=op.in_progress, status_reason=describe,
             operation_args={**args, "phase": "started", **previous})
    if args.get("operation_id"):
        records.start(args["operation_id"], describe)
    if op.notify_pending:
        notifications.emit(job.context, op.action, notifications.PENDING, job.cluster,
                           job.nodegroups())


def _handed_over(job: Job, record_uuid: str | None) -> None:
    """The handler returned: done if nothing is left in progress, else the stack work is
    under way and the status sync will settle the record (its outcome follows Heat's,
    :func:`record_state`)."""
    if not record_uuid:
        return
    try:
        cluster = job.reload()
    except exception.ClusterNotFound:
        records.finish(record_uuid, states.OPERATION_SUCCEEDED, "The cluster is deleted.")
        return
    if states.is_in_progress(cluster.status):
        records.note(record_uuid, cluster.status_reason or "")
    else:
        _outcome(job, states.OPERATION_SUCCEEDED, cluster.status_reason,
                 {"operation_id": record_uuid})


def _outcome(job: Job, state: str, reason: str | None,
             args: dict[str, Any] | None = None) -> None:
    """The handler's verdict on the record (the row's operation is cleared already), and
    the cluster's next queued record starts."""
    record_uuid = (args if args is not None else job.args).get("operation_id")
    if record_uuid:
        records.finish(record_uuid, state, reason)
    advance(job.uuid, job.lease.owner)


def advance(cluster_uuid: str, owner: str | None = None) -> Any:
    """Start the cluster's next queued record if nothing is open on it any more: it is
    recorded on the row (under ``owner``'s lease when given) and cast to any conductor.
    Returns the record, or None."""
    record = records.promote(cluster_uuid,
                             expected={"lock_owner": owner} if owner is not None else None)
    if record is not None:
        LOG.info("Starting queued %s %s of cluster %s", record.kind, record.uuid,
                 cluster_uuid)
        ConductorAPI().cast_recorded(make_admin_context(), record.kind, cluster_uuid)
    return record


def record_state(status: str) -> str:
    """The outcome of a record whose stack work ended in ``status``."""
    return (states.OPERATION_FAILED if status.endswith("_FAILED")
            else states.OPERATION_SUCCEEDED)


def revert(job: Job, outcome: Outcome | None) -> None:
    """Back to the row the operation started from (nothing was changed), ``updated_at``
    included: the request was refused (``outcome``: the record's, in the same
    transaction)."""
    args = job.args
    previous = args.get("previous_updated_at")
    job.finish(outcome, status=args.get("previous_status") or job.cluster.status,
               status_reason=args.get("previous_reason"),
               **({"updated_at": datetime.datetime.fromisoformat(previous)} if previous
                  else {}))


def _failed(args: dict[str, Any], reason: str) -> Outcome | None:
    """The failed outcome of the record ``args`` name (None: recorded without one)."""
    record = args.get("operation_id")
    return Outcome(states.OPERATION_FAILED, reason, record) if record else None


def _isotime(value: datetime.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def overrun(job: Job, op: Operation, seconds: int) -> None:
    """The watchdog (lease thread): the operation ran past its maximum time; fail it with
    what the worker is waiting for, and free the lease in the same UPDATE."""
    waiting = outbound.unanswered(job.lease.worker)
    exc = exception.OperationTimedOut(
        operation=op.name, seconds=seconds,
        waiting=waiting.describe() if waiting is not None
        else "it was not waiting for another service")
    LOG.error("%s of cluster %s: %s", op.name, job.uuid, exc)
    fail(job, op, exc, lock_owner=None, lock_expires_at=None)


def fail(job: Job, op: Operation, exc: Exception, **release: Any) -> None:
    """Record the failure: ``*_FAILED`` with the error as reason, operation cleared
    (``release``: the lease columns too, by the watchdog)."""
    args = job.args
    reason = _reason(exc)
    try:
        if op.on_failure is not None:
            op.on_failure(job, exc)
        job.finish(_failed(args, reason),
                   status=op.failed, status_reason=reason, **release)
    except LeaseLost:
        return
    _outcome(job, states.OPERATION_FAILED, reason, args)
    notifications.emit(job.context, op.action, notifications.FAILURE, job.cluster,
                       job.nodegroups())
