"""One unit of conductor work on one cluster, done while holding the cluster's lease.

A Job bundles what every handler needs: the cluster row, its template and node groups, the
driver, the resources handed to the driver, the requester's context (rebuilt from the
snapshot the API recorded) and the lease. Every write goes through the Job and is made
conditional on the lease still being ours, so a conductor that lost its lease (it stalled
past expiry and another conductor took over) can never overwrite the newer owner's work.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import sqlalchemy as sa
from oslo_log import log as logging

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db import models
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import STEP_PROGRESS
from magnum_common.db.operations import operations as records
from magnum_common.drivers import registry
from magnum_common.drivers.base import Driver
from magnum_common.drivers.view import ClusterView
from magnum_conductor.engine.lease import Lease, LeaseLost
from magnum_conductor.engine.resources import Resources

LOG = logging.getLogger(__name__)


def requester_context(cluster: models.Cluster) -> RequestContext | None:
    """The requester's context recorded with the pending operation, if any."""
    return RequestContext.from_record(cluster.operation_args)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """An operation record's outcome, written in the transaction that moves the cluster row
    out of progress: no reader ever sees a finished cluster whose record is still running."""

    state: str
    reason: str | None
    #: The record's UUID; None: every running record of the cluster (the status sync).
    record: str | None = None


@dataclasses.dataclass(frozen=True)
class NodeGroupWrite:
    """A node group's new values from a snapshot (None: the row goes), written only while
    the node group is the version that was read (its status and ``updated_at``): a request
    that moved it since, e.g. one queued behind the running operation, wins."""

    observed: models.NodeGroup
    values: dict[str, Any] | None

    def apply(self, context: RequestContext) -> bool:
        ng = self.observed
        expected = {"cluster_id": ng.cluster_id, "status": ng.status,
                    "updated_at": ng.updated_at}
        if self.values is None:
            return nodegroups.destroy_if(context, ng.uuid, expected)
        return nodegroups.compare_and_swap(context, ng.uuid, expected, self.values)


class _Stale(Exception):
    """A guarded node-group write found its row moved on: roll the transaction back."""


class Job:
    """The state one handler run works with; reload() after anything else may have written."""

    def __init__(self, lease: Lease, cluster: models.Cluster,
                 context: RequestContext | None = None) -> None:
        self.lease = lease
        self.cluster = cluster
        self.context = context or requester_context(cluster)
        record = (cluster.operation_args or {}).get("operation_id")
        #: Effects earlier runs of this operation journaled (sent, maybe confirmed).
        self.earlier: dict[str, Any] = records.effects_of(record) if record else {}
        self._template: models.ClusterTemplate | None = None
        self._driver: Driver | None = None
        self._resources: Resources | None = None

    @property
    def uuid(self) -> str:
        return self.cluster.uuid

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.cluster.operation_args or {})

    @property
    def template(self) -> models.ClusterTemplate:
        if self._template is None:
            self._template = cluster_templates.get_by_uuid(None, self.cluster.cluster_template_id)
        return self._template

    @property
    def driver(self) -> Driver:
        if self._driver is None:
            self._driver = registry.get_driver_for_template(self.template)
        return self._driver

    @property
    def resources(self) -> Resources:
        if self._resources is None or self._resources.cluster is not self.cluster:
            # Heat makes (or, its own trust gone with a departed creator, remakes) a trust
            # from the caller's token on these: the requester's own, as a trust-scoped one
            # cannot delegate (and a rotation's old trust may be dead already).
            creating = self.cluster.operation in (states.OP_CREATE, states.OP_NODEGROUP_CREATE,
                                                  states.OP_ROTATE_CREDENTIAL)
            deleting = (self.cluster.operation in (states.OP_DELETE,
                                                   states.OP_NODEGROUP_DELETE)
                        or self.cluster.status == states.DELETE_IN_PROGRESS)
            self._resources = Resources(self.context, self.cluster, prefer_requester=creating,
                                        service_fallback=deleting,
                                        guard=self.lease.confirm)
        return self._resources

    def sent_already(self, exc: Exception, request: str) -> bool:
        """The driver answers ``StackBusy`` to a request an earlier run journaled as being
        sent: that first attempt got through. A 409 to a request never sent before is
        another change's (issue 12, point 4)."""
        return isinstance(exc, exception.StackBusy) and request in self.earlier

    def effect_pending(self, name: str, **detail: Any) -> None:
        """Journal on the operation record, before the call, that effect ``name`` is about
        to happen, with what recovery needs to find or undo it (``detail``)."""
        self.lease.ensure()
        record = self.args.get("operation_id")
        if record:
            records.effect(record, name, states.EFFECT_PENDING, **detail)

    def effect_done(self, name: str, **detail: Any) -> None:
        """Confirm effect ``name`` (its result is saved on the rows)."""
        record = self.args.get("operation_id")
        if record:
            records.effect(record, name, states.EFFECT_DONE, **detail)

    def progress(self, step: str) -> None:
        """Note on the operation's record (or, for the status sync, on the cluster's running
        one) that ``step`` starts: a DELETE takes over a delete that shows none for long."""
        record = self.args.get("operation_id")
        text = f"{STEP_PROGRESS}{step}"
        if record:
            records.note(record, text)
        else:
            records.note_running(self.uuid, text)

    def nodegroups(self) -> list[models.NodeGroup]:
        return nodegroups.list(None, {"cluster_id": self.uuid})

    def view(self, nodegroups: list[models.NodeGroup] | None = None) -> ClusterView:
        """The cluster as its driver is handed it: the rows as they are now (or with the
        ``nodegroups`` the handler has just read), one snapshot per driver call."""
        return ClusterView.of(self.cluster, self.template,
                              self.nodegroups() if nodegroups is None else nodegroups)

    def nodegroup(self, uuid: str) -> models.NodeGroup:
        return nodegroups.get_in_cluster(None, self.uuid, uuid)

    def reload(self) -> models.Cluster:
        self.cluster = clusters.get_by_uuid(None, self.uuid)
        return self.cluster

    # --- writes, all conditional on the lease ----------------------------------------------
    def _swap(self, expected: dict[str, Any], values: dict[str, Any],
              outcome: Outcome | None, writes: list[NodeGroupWrite] | None = None) -> bool:
        """The guarded UPDATE of the row, the node-group ``writes`` and the record's
        outcome: one transaction, nothing written when any guard fails."""
        self.lease.ensure()
        context = make_admin_context()
        try:
            with db_api.writer(context):
                if not clusters.compare_and_swap(context, self.uuid,
                                                 {**expected, "lock_owner": self.lease.owner},
                                                 values):
                    return False
                if not all(write.apply(context) for write in writes or ()):
                    raise _Stale
                if outcome is not None and outcome.record is not None:
                    records.finish(outcome.record, outcome.state, outcome.reason, context)
                elif outcome is not None:
                    records.finish_running(self.uuid, outcome.state, outcome.reason, context)
        except _Stale:
            return False
        return True

    def save(self, outcome: Outcome | None = None, **values: Any) -> models.Cluster:
        """Update the cluster row if the lease is still ours (with ``outcome``, in the same
        transaction); return the fresh row."""
        if not self._swap({}, values, outcome):
            self.lease.lost.set()
            raise LeaseLost(cluster=self.uuid)
        return self.reload()

    def save_if(self, expected: dict[str, Any], outcome: Outcome | None = None,
                writes: list[NodeGroupWrite] | None = None, **values: Any) -> bool:
        """Like save(), and only while the row still holds ``expected`` and each node group
        of ``writes`` is as observed (what a write from an earlier snapshot assumed); False,
        nothing written, when anything moved on."""
        if self._swap(expected, values, outcome, writes):
            self.reload()
            return True
        if self.reload().lock_owner != self.lease.owner:
            self.lease.lost.set()
            raise LeaseLost(cluster=self.uuid)
        return False

    def save_nodegroup(self, uuid: str, **values: Any) -> None:
        """Update a node group row while the cluster's lease is still ours (in the same
        statement: a DELETE that took the cluster over keeps its node groups' status)."""
        self.lease.ensure()
        ours = sa.exists().where(models.Cluster.uuid == self.uuid,
                                 models.Cluster.lock_owner == self.lease.owner)
        if not nodegroups.compare_and_swap(None, uuid, {}, values, extra_where=[ours]):
            nodegroups.get_by_uuid(None, uuid)  # NodeGroupNotFound when the row is gone
            self.lease.lost.set()
            raise LeaseLost(cluster=self.uuid)

    def save_nodegroups(self, ngs: list[models.NodeGroup], **values: Any) -> None:
        for ng in ngs:
            self.save_nodegroup(ng.uuid, **values)

    def finish(self, outcome: Outcome | None = None, **values: Any) -> models.Cluster:
        """Clear the recorded operation (keeping ``operation_at`` as its start time). When
        the cluster leaves progress here, its record ends in the same transaction:
        ``outcome``, or succeeded with the status reason."""
        record = self.args.get("operation_id")
        status = values.get("status", self.cluster.status)
        if outcome is None and record and not states.is_in_progress(status):
            outcome = Outcome(states.OPERATION_SUCCEEDED,
                              values.get("status_reason", self.cluster.status_reason), record)
        return self.save(outcome, operation=None, operation_args={}, **values)

    def destroy(self, outcome: Outcome | None = None) -> None:
        """Remove the cluster row and its node groups (the end of a delete), with the
        outcome of its running records: one transaction, written only while the lease is
        ours (a delete taken over by another DELETE removes nothing and ends nothing)."""
        self.lease.ensure()
        context = make_admin_context()
        with db_api.writer(context) as session:
            gone = session.execute(
                sa.delete(models.Cluster).where(models.Cluster.uuid == self.uuid,
                                                models.Cluster.lock_owner == self.lease.owner)
                .execution_options(synchronize_session=False)).rowcount
            if gone:
                session.execute(sa.delete(models.NodeGroup)
                                .where(models.NodeGroup.cluster_id == self.uuid)
                                .execution_options(synchronize_session=False))
                if outcome is not None:
                    records.finish_running(self.uuid, outcome.state, outcome.reason, context)
        self.lease.lost.set()  # nothing left to renew or release
        if not gone:
            raise LeaseLost(cluster=self.uuid)

    def destroy_nodegroup(self, uuid: str) -> None:
        """Remove a node group row while the cluster's lease is ours (in the statement)."""
        self.lease.ensure()
        ours = sa.exists().where(models.Cluster.uuid == self.uuid,
                                 models.Cluster.lock_owner == self.lease.owner)
        if not nodegroups.destroy_if(None, uuid, {"cluster_id": self.uuid},
                                     extra_where=[ours]):
            nodegroups.get_by_uuid(None, uuid)  # NodeGroupNotFound when the row is gone
            self.lease.lost.set()
            raise LeaseLost(cluster=self.uuid)

