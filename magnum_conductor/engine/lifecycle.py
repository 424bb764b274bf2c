"""The conductors' lifecycle log: one line per step of every operation, on its own logger.

Upstream logs one INFO line in a cluster's whole life; an operator following a create,
resize or upgrade (and the Heat calls they make) had to turn on debug. Every step of an
operation now ends with one INFO line on the ``magnum_conductor.lifecycle`` logger, in a
fixed ``key=value`` shape that tools (and ``bench/bench_conductor_create.py``) parse::

    operation=cluster_create cluster=<uuid> nodegroup=- step=trust outcome=ok seconds=0.412 \
request_id=req-...

A failed operation writes one WARNING instead of the failed step's INFO line, naming the
step and the reason (no traceback: it is on the debug level of the operation's logger).
The status sync ends the operation's story with a ``step=stack`` line when Heat's verdict
is recorded.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import logging as std_logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from oslo_log import log as logging

from magnum_common import exception, states
from magnum_common.db import models
from magnum_conductor.engine.lease import LeaseLost

LOG = logging.getLogger("magnum_conductor.lifecycle")


@dataclasses.dataclass
class Step:
    """One step in progress; the handler may say how it ended (e.g. ``present``)."""

    name: str
    nodegroup: str | None = None
    outcome: str = "ok"


@dataclasses.dataclass
class _Run:
    """The operation run of this thread: which step failed, for its closing WARNING."""

    failed: Step | None = None
    failed_seconds: float = 0.0


_RUN: contextvars.ContextVar[_Run | None] = contextvars.ContextVar("lifecycle_run",
                                                                  default=None)


def _flat(text: Any) -> str:
    """One line, whatever a reason contains (log lines are parsed line by line)."""
    return " ".join(str(text).split()) or "-"


def record(job: Any, step: str, outcome: str, seconds: float, nodegroup: str | None = None,
           reason: str | None = None, operation: str | None = None) -> None:
    """Write one lifecycle line: INFO, or WARNING when a reason for a failure is given."""
    context = job.context
    request_id = getattr(context, "request_id", None) or "-"
    nodegroup = nodegroup or job.args.get("nodegroup_uuid") or "-"
    message = (f"operation={_flat(operation or job.cluster.operation or '-')} "
               f"cluster={job.uuid} nodegroup={_flat(nodegroup)} step={_flat(step)} "
               f"outcome={_flat(outcome)} seconds={seconds:.3f} request_id={_flat(request_id)}")
    level = std_logging.INFO
    if reason is not None:
        level = std_logging.WARNING
        message += f" reason={_flat(reason)}"
    LOG.log(level, "%s", message, context=context)


@contextlib.contextmanager
def step(job: Any, name: str, nodegroup: str | None = None,
         operation: str | None = None) -> Iterator[Step]:
    """One step of an operation; its INFO line when it ends. A step that raises leaves
    its line to the operation's closing WARNING (or writes it itself outside one). A step
    starts only while the lease is still ours in the database (a DELETE may have taken the
    cluster over since the last step), and is noted as the operation's progress."""
    job.lease.confirm()
    job.progress(name)
    current = Step(name, nodegroup)
    started = time.monotonic()
    try:
        yield current
    except Exception as exc:
        run = _RUN.get()
        if run is None:
            record(job, name, "failed", time.monotonic() - started, nodegroup,
                   reason=_text(exc), operation=operation)
        elif run.failed is None:
            run.failed, run.failed_seconds = current, time.monotonic() - started
        raise
    record(job, name, current.outcome, time.monotonic() - started, nodegroup,
           operation=operation)


def authenticate(job: Any, nodegroup: str | None = None) -> None:
    """The ``auth`` step: the identity the driver will use authenticates now (Keystone)."""
    with step(job, "auth", nodegroup):
        job.resources.check_auth()


@contextlib.contextmanager
def stack_request(job: Any, name: str, nodegroup: str | None = None) -> Iterator[Step]:
    """A step that sends a stack request, journaled as a pending effect of the operation
    before it is sent and confirmed once Heat accepted it. Heat answering busy counts as
    "our earlier send got through" only when an earlier run journaled this request
    (``Job.sent_already``): the step then ends ``sent-already``; otherwise the stack is busy
    with someone else's change and the step fails."""
    job.effect_pending(name, nodegroup=nodegroup)
    with step(job, name, nodegroup) as current:
        try:
            yield current
        except Exception as exc:
            if not job.sent_already(exc, name):
                raise
            current.outcome = "sent-already"
    job.effect_done(name)


def _text(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__


@contextlib.contextmanager
def operation(job: Any, reason: Callable[[Exception], str] = _text) -> Iterator[None]:
    """Around one run of the operation recorded on ``job.cluster``: a closing INFO line
    (``step=operation``) with the run's seconds, or one WARNING naming the failed step and
    the ``reason`` (the text the cluster's status_reason gets)."""
    run = _Run()
    token = _RUN.set(run)
    name = job.cluster.operation
    nodegroup = job.args.get("nodegroup_uuid")  # the recorded arguments are cleared at the end
    started = time.monotonic()
    try:
        yield
    except LeaseLost:
        record(job, "operation", "lease-lost", time.monotonic() - started, nodegroup,
               reason="another conductor holds the cluster's lease now", operation=name)
        raise
    except exception.NotSupported as exc:
        record(job, "operation", "not-supported", time.monotonic() - started, nodegroup,
               reason=reason(exc), operation=name)
        raise
    except Exception as exc:
        failed = run.failed or Step("operation", nodegroup)
        seconds = run.failed_seconds if run.failed else time.monotonic() - started
        record(job, failed.name, "failed", seconds, failed.nodegroup, reason=reason(exc),
               operation=name)
        raise
    finally:
        _RUN.reset(token)
    record(job, "operation", "ok", time.monotonic() - started, nodegroup, operation=name)


def stack_verdict(job: Any, status: str, reason: str | None = None) -> None:
    """Heat's verdict as the status sync records it (``step=stack``, outcome the status):
    the last step of the operation whose stack request it answers (named by Heat's action,
    e.g. ``cluster_update`` for a resize), timed from when that operation was accepted."""
    since = job.cluster.operation_at or job.cluster.updated_at
    seconds = max(0.0, (models.utcnow() - since).total_seconds()) if since else 0.0
    failed = status.endswith("_FAILED")
    record(job, "stack", status, seconds, reason=(reason or status) if failed else None,
           operation=f"cluster_{states.action_of(status).lower()}")
