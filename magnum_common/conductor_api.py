"""The RPC client the API uses to reach the conductors (topic ``[conductor] topic``).

Every state-changing request is made durable before it is sent, here and nowhere else (the
API's controllers validate, then call one method of ``ConductorAPI``). In one transaction
it moves the target to its in-progress status (the cluster, and the node group the request is
about), records the operation and its arguments on the cluster row (``operation``,
``operation_args``) and writes the operation record (magnum_common.db.operations); then it
casts just the cluster's UUID. So the first read after the 202 already shows the new status,
and the record the 202 names exists. Both keep the requester's identity and, sealed with
the ``[crypto]`` keys, the requester's token (``RequestContext.record``); messages carry the
identity only (``RequestContext.to_dict``). A conductor reads the recorded operation from the row,
so a cast that is lost (broker down, conductor killed) is replayed by any conductor's
reconciler, and the cast itself carries nothing that the row does not already hold.

Casts are sent with a bounded retry; when the broker is unreachable the request stays
recorded and is still accepted (a reconciler starts it), so a client's retry never makes a
second cluster.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import oslo_messaging as messaging
from kombu import exceptions as kombu_exc
from oslo_log import log as logging

from magnum_common import exception, rpc, states, utils
from magnum_common.config import CONF
from magnum_common.context import RequestContext
from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import STEP_PROGRESS, operations
from magnum_common.drivers import settings

LOG = logging.getLogger(__name__)

#: How a refusal names the operation (the contract's wording: "Upgrading a cluster when
#: status is ... is not supported.").
_VERBS = {states.OP_UPDATE: "Updating", states.OP_RESIZE: "Resizing",
          states.OP_UPGRADE: "Upgrading", states.OP_ROTATE_CA: "Updating",
          states.OP_ROTATE_CREDENTIAL: "Rotating the credentials of"}

#: What a broker that cannot be reached raises through oslo.messaging (the rabbit driver
#: lets kombu's connection errors through when the retries are exhausted).
_UNREACHABLE = (messaging.MessageDeliveryFailure, kombu_exc.OperationalError, OSError)


@dataclasses.dataclass
class Target:
    """What a request changes besides the cluster: node group rows, written in the
    recording transaction (``values`` per UUID; ``new`` is a node group to insert)."""

    nodegroup_uuid: str | None = None
    nodegroups: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    new: dict[str, Any] | None = None
    cluster: dict[str, Any] = dataclasses.field(default_factory=dict)


class _Lost(Exception):
    """The guarded UPDATE found the row changed since it was read: roll back."""


class ConductorAPI:
    """One method per conductor endpoint; casts carry the cluster UUID only."""

    def __init__(self, topic: str | None = None) -> None:
        self._topic = topic

    @property
    def _client(self) -> messaging.RPCClient:
        return rpc.get_client(topic=self._topic)

    def _cast(self, context: RequestContext, method: str, **kwargs: Any) -> None:
        """Cast for a recorded operation: an unreachable broker leaves it to a reconciler."""
        try:
            self._client.prepare(retry=CONF.conductor.cast_retry).cast(context, method, **kwargs)
        except _UNREACHABLE:
            LOG.warning("The message broker is unreachable; %s of cluster %s stays recorded "
                        "for a conductor's reconciler", method, kwargs.get("cluster_uuid"))

    def _call(self, context: RequestContext, method: str, **kwargs: Any) -> Any:
        try:
            return self._client.prepare(retry=CONF.conductor.cast_retry).call(
                context, method, **kwargs)
        except messaging.MessagingTimeout as exc:
            raise exception.ServiceUnavailable(
                reason="no conductor answered within the RPC timeout") from exc
        except _UNREACHABLE as exc:
            raise exception.ServiceUnavailable(reason="the message broker is unreachable") from exc

    def _submit(self, context: RequestContext, cluster_uuid: str, operation: str,
                args: dict[str, Any], target: Target | None = None,
                call: bool = False) -> str:
        """Record the operation and start it (a cast, or a call), or queue it behind the
        cluster's open operations; returns the record's UUID."""
        target = target or Target()
        for _ in range(3):
            cluster = clusters.get_by_uuid(None, cluster_uuid)
            blocking = operations.open_of(cluster_uuid)
            try:
                if cluster.operation is not None or blocking:
                    return self._enqueue(context, cluster, operation, args, target, blocking)
                record_uuid = self._record(context, cluster, operation, args, target)
            except _Lost:
                continue  # another request got there first: look again
            if call:
                self._call_recorded(context, operation, cluster_uuid, record_uuid)
            else:
                self._cast(context, operation, cluster_uuid=cluster_uuid)
            return record_uuid
        raise exception.ConcurrentUpdate(resource="Cluster", ident=cluster_uuid)

    def _record(self, context: RequestContext, cluster: Any, operation: str,
                args: dict[str, Any], target: Target) -> str:
        """Record the operation and move its targets to in-progress, in one transaction and
        only from a status it may start from and while nothing else is open on the cluster
        (a refused request leaves every row as it was)."""
        self._check_gate(cluster, operation)
        status, reason = states.ACCEPTED_STATUS[operation]
        record_uuid = utils.generate_uuid()
        requested = {**args, **context.record()}
        recorded = {**requested, "operation_id": record_uuid,
                    "previous_status": cluster.status,
                    "previous_reason": cluster.status_reason,
                    "previous_updated_at": cluster.updated_at.isoformat()
                    if cluster.updated_at else None}
        values = {"status": status, "status_reason": reason, "updated_at": db_api.now(),
                  **target.cluster}
        expected = {"status": cluster.status, "updated_at": cluster.updated_at}
        with db_api.writer(context):
            if not clusters.record_operation(context, cluster.uuid, operation, recorded,
                                             values, expected):
                raise _Lost
            self._write_targets(context, cluster.uuid, target)
            operations.add(context, cluster.uuid, operation, requested,
                           target.nodegroup_uuid, uuid=record_uuid)
        return record_uuid

    def _enqueue(self, context: RequestContext, cluster: Any, operation: str,
                 args: dict[str, Any], target: Target, blocking: list[Any]) -> str:
        """Queue the request behind the open operations it does not contradict; its node
        group moves now (the first read shows it), the cluster is in progress already."""
        self._check_contradiction(cluster, operation, target, blocking)
        record_uuid = utils.generate_uuid()
        requested = {**args, **context.record()}
        if target.new is not None:
            requested["previous_nodegroup"] = {
                "status": states.CREATE_FAILED,
                "status_reason": "Not created: the request was refused when its turn came."}
        elif target.nodegroup_uuid in target.nodegroups:
            ng = nodegroups.get_by_uuid(None, target.nodegroup_uuid)
            requested["previous_nodegroup"] = {
                key: getattr(ng, key) for key in target.nodegroups[target.nodegroup_uuid]}
        with db_api.writer(context):
            if target.cluster:
                clusters.compare_and_swap(context, cluster.uuid, {}, target.cluster)
            self._write_targets(context, cluster.uuid, target)
            operations.add(context, cluster.uuid, operation, requested,
                           target.nodegroup_uuid, uuid=record_uuid)
        LOG.info("Queued %s of cluster %s behind %s", operation, cluster.uuid,
                 ", ".join(r.uuid for r in blocking) or cluster.operation)
        self.start_next(context, cluster.uuid)  # in case all ended meanwhile
        return record_uuid

    def start_next(self, context: RequestContext, cluster_uuid: str) -> str | None:
        """Start the cluster's next queued record if nothing else is open on it."""
        record = operations.promote(cluster_uuid)
        if record is None:
            return None
        self.cast_recorded(context, record.kind, cluster_uuid)
        return record.uuid

    def cast_recorded(self, context: RequestContext, operation: str,
                      cluster_uuid: str) -> None:
        """Have a conductor run the operation recorded on the cluster row."""
        self._cast(context, operation, cluster_uuid=cluster_uuid)

    @staticmethod
    def _write_targets(context: RequestContext, cluster_uuid: str, target: Target) -> None:
        if target.new is not None:
            nodegroups.create(context, target.new)
        for uuid, ng_values in target.nodegroups.items():
            nodegroups.compare_and_swap(context, uuid, {"cluster_id": cluster_uuid}, ng_values)

    @staticmethod
    def _check_contradiction(cluster: Any, operation: str, target: Target,
                             blocking: list[Any]) -> None:
        """409 for a request that cannot wait behind what is open on the cluster: anything
        while it is created or deleted, anything on a node group that is being deleted. A
        node group's delete waits behind anything (the cluster's own never comes here)."""
        if not blocking:  # recorded by a release without operation records
            raise exception.OperationConflict(
                request=operation, operation="(unrecorded)", kind=cluster.operation,
                state=states.OPERATION_PENDING, cluster=cluster.name or cluster.uuid)
        for record in blocking:
            if operation == states.OP_NODEGROUP_DELETE and record.kind != states.OP_DELETE:
                continue
            if (record.kind in (states.OP_CREATE, states.OP_DELETE)
                    or (record.kind == states.OP_NODEGROUP_DELETE
                        and record.nodegroup_id == target.nodegroup_uuid)):
                raise exception.OperationConflict(
                    request=operation, operation=record.uuid, kind=record.kind,
                    state=record.state, cluster=cluster.name or cluster.uuid)

    @staticmethod
    def _check_gate(cluster: Any, operation: str) -> None:
        gate = states.OPERATION_GATES[operation]
        if gate is not None and cluster.status not in gate:
            raise exception.NotSupported(
                operation=f'{_VERBS[operation]} a cluster when status is "{cluster.status}"')

    def _call_recorded(self, context: RequestContext, method: str, cluster_uuid: str,
                       record_uuid: str) -> None:
        """A call for a recorded operation: a conductor that cannot take the cluster now, or
        no conductor at all, leaves it recorded, and the reconciler starts it later. A
        conductor may also have run it to its end after the RPC timeout gave up waiting:
        the record says which happened."""
        try:
            self._call(context, method, cluster_uuid=cluster_uuid)
        except exception.ClusterBusy:
            LOG.info("Cluster %s is busy; its %s stays recorded", cluster_uuid, method)
        except exception.ServiceUnavailable as exc:
            state = operations.get_by_uuid(None, record_uuid).state
            if state in states.OPERATION_OPEN:
                LOG.warning("%s of cluster %s stays recorded (%s) for a reconciler: %s",
                            method, cluster_uuid, state, exc)
            else:
                LOG.info("%s of cluster %s ended (%s) after the call stopped waiting: %s",
                         method, cluster_uuid, state, exc)

    def submit_create(self, context: RequestContext, cluster: dict[str, Any],
                      image_id: str | None, master_count: int, node_count: int) -> str:
        """A new cluster's intent, recorded as every operation's is, then cast: the row
        (``cluster``: its column values), its default node groups and the pending create
        with its record, in one transaction. Returns the record's UUID."""
        row = clusters.create_with_nodegroups(
            context, cluster, settings.default_nodegroups(context.project_id, cluster,
                                                          image_id, master_count, node_count),
            {"master_count": master_count, "node_count": node_count,
             "create_timeout": cluster["create_timeout"], **context.record()})
        self.cluster_create(context, row.uuid)
        return row.operation_args["operation_id"]

    # --- casts (the row already records the operation) ------------------------------------
    def cluster_create(self, context: RequestContext, cluster_uuid: str) -> None:
        """Cast after ClusterRepository.create_with_nodegroups recorded OP_CREATE."""
        self._cast(context, "cluster_create", cluster_uuid=cluster_uuid)

    def cluster_update(self, context: RequestContext, cluster_uuid: str, node_count: int,
                       health_status: str | None = None,
                       health_status_reason: dict | None = None,
                       rollback: bool = False) -> str:
        """PATCH of a cluster. A health report is applied at once (no stack work); a new
        node count resizes the default worker group. Returns the record's UUID."""
        health = {key: value for key, value in (("health_status", health_status),
                                                ("health_status_reason",
                                                 health_status_reason))
                  if value is not None}
        worker = _default_worker(cluster_uuid)
        if worker is None or node_count == worker.node_count:
            if not health:
                self._check_gate(clusters.get_by_uuid(None, cluster_uuid), states.OP_UPDATE)
            return self._apply_at_once(context, cluster_uuid, states.OP_UPDATE,
                                       {"node_count": node_count, **health}, health)
        return self._submit(
            context, cluster_uuid, states.OP_UPDATE,
            {"node_count": node_count, "rollback": rollback,
             "previous_node_count": worker.node_count, **health},
            Target(worker.uuid, {worker.uuid: _resizing(node_count)}, cluster=health))

    def _apply_at_once(self, context: RequestContext, cluster_uuid: str, operation: str,
                       args: dict[str, Any], values: dict[str, Any],
                       nodegroup_uuid: str | None = None,
                       nodegroup_values: dict[str, Any] | None = None) -> str:
        """A change that needs no stack work: written now, with a finished record."""
        record_uuid = utils.generate_uuid()
        with db_api.writer(context):
            if values:
                clusters.compare_and_swap(context, cluster_uuid, {}, values)
            if nodegroup_values:
                nodegroups.compare_and_swap(context, nodegroup_uuid,
                                            {"cluster_id": cluster_uuid}, nodegroup_values)
            operations.add(context, cluster_uuid, operation, args, nodegroup_uuid,
                           state=states.OPERATION_SUCCEEDED, uuid=record_uuid,
                           reason="Applied at once; no stack work needed.")
        return record_uuid

    def cluster_resize(self, context: RequestContext, cluster_uuid: str, node_count: int,
                       nodegroup_uuid: str, nodes_to_remove: list[str] | None = None) -> str:
        ng = nodegroups.get_in_cluster(None, cluster_uuid, nodegroup_uuid)
        return self._submit(
            context, cluster_uuid, states.OP_RESIZE,
            {"node_count": node_count, "nodegroup_uuid": nodegroup_uuid,
             "nodes_to_remove": list(nodes_to_remove or []),
             "previous_node_count": ng.node_count},
            Target(nodegroup_uuid, {nodegroup_uuid: _resizing(node_count)}))

    def cluster_delete(self, context: RequestContext, cluster_uuid: str) -> str:
        """DELETE is accepted in every state, as upstream: recorded like any request when
        nothing is open, else it takes the cluster over (:meth:`_take_over`). A DELETE
        while one is open names that one and changes nothing (a conductor is asked again
        to run it, in case its cast was lost), unless that delete hangs holding the lease
        (:meth:`_hung`): then it is taken over too. Returns the delete's record UUID."""
        for _ in range(3):
            cluster = clusters.get_by_uuid(None, cluster_uuid)
            blocking = operations.open_of(cluster_uuid)
            running = next((r for r in blocking if r.kind == states.OP_DELETE), None)
            if running is not None and not self._hung(cluster, running):
                if cluster.operation == states.OP_DELETE:
                    self._cast(context, states.OP_DELETE, cluster_uuid=cluster_uuid)
                return running.uuid
            groups = {ng.uuid: _DELETING
                      for ng in nodegroups.list(None, {"cluster_id": cluster_uuid})}
            try:
                if cluster.operation is None and not blocking:
                    record_uuid = self._record(context, cluster, states.OP_DELETE, {},
                                               Target(nodegroups=groups))
                else:
                    record_uuid = self._take_over(
                        context, cluster, blocking, states.OP_DELETE, {},
                        Target(nodegroups=groups), "the cluster delete",
                        {running.uuid: running.updated_at} if running else None)
            except _Lost:
                continue  # another request or a conductor moved the row: look again
            self._cast(context, states.OP_DELETE, cluster_uuid=cluster_uuid)
            return record_uuid
        raise exception.ConcurrentUpdate(resource="Cluster", ident=cluster_uuid)

    @staticmethod
    def _hung(cluster: Any, delete: Any) -> bool:
        """Whether the running ``delete`` hangs holding the cluster's lease: a conductor
        holds it (unexpired: an expired or free lease goes to whichever conductor the cast
        reaches) while the delete's conductor work, or the status sync's end of it, has
        noted no step for ``[conductor] delete_takeover_after`` seconds (the database
        server's clock). A delete waiting for Heat to remove its stacks holds nothing and
        is not hung: the sync takes the lease only for a moment."""
        if cluster.lock_owner is None:
            return False
        now = db_api.server_now()
        if cluster.lock_expires_at is not None and cluster.lock_expires_at < now:
            return False
        if cluster.operation != states.OP_DELETE and not (
                delete.progress or "").startswith(STEP_PROGRESS):
            return False
        noted = delete.updated_at or delete.accepted_at
        return (now - noted).total_seconds() >= CONF.conductor.delete_takeover_after

    def _take_over(self, context: RequestContext, cluster: Any, superseded: list[Any],
                   operation: str, args: dict[str, Any], target: Target, by: str,
                   observed: dict[str, Any] | None = None) -> str:
        """One transaction: the ``superseded`` records end (queued ones never run),
        ``operation`` (a delete) becomes the operation on the row, the cluster and the
        ``target`` node groups move to their in-progress status, and the lease is freed.
        The conductor running a superseded operation is stopped by that: its next write,
        or the lease check before its next step, finds its lease token gone, so a live,
        dead or hung holder alike no longer keeps the cluster nor writes a status or an
        outcome; the conductor that takes the delete finds the stacks by id or name.
        ``observed``: records (UUID: ``updated_at`` as read) that must not have moved since
        (a hung delete that made progress meanwhile is not taken over)."""
        record_uuid = utils.generate_uuid()
        requested = {**args, **context.record()}
        now = db_api.now()
        status, reason = states.ACCEPTED_STATUS[operation]
        # what the cluster was before the operation it stops, when that is on the row
        before = (cluster.operation_args or {}) if cluster.operation else {}
        values = {"operation": operation, "operation_at": now, "updated_at": now,
                  "operation_args": {
                      **requested, "operation_id": record_uuid,
                      "previous_status": before.get("previous_status", cluster.status),
                      "previous_reason": before.get("previous_reason",
                                                    cluster.status_reason),
                      "previous_updated_at": before.get(
                          "previous_updated_at", cluster.updated_at.isoformat()
                          if cluster.updated_at else None)},
                  "status": status, "status_reason": reason,
                  "lock_owner": None, "lock_expires_at": None}
        expected = {"operation": cluster.operation, "operation_at": cluster.operation_at}
        with db_api.writer(context):
            if not clusters.compare_and_swap(context, cluster.uuid, expected, values):
                raise _Lost
            if not operations.supersede(context, [r.uuid for r in superseded],
                                        f"Superseded by {by} {record_uuid}.", observed):
                raise _Lost
            self._write_targets(context, cluster.uuid, target)
            operations.add(context, cluster.uuid, operation, requested,
                           target.nodegroup_uuid, uuid=record_uuid)
        LOG.info("%s %s of cluster %s supersedes %s", operation, record_uuid, cluster.uuid,
                 ", ".join(f"{r.kind} {r.uuid}" for r in superseded) or cluster.operation)
        return record_uuid

    def nodegroup_create(self, context: RequestContext, cluster_uuid: str,
                         values: dict[str, Any]) -> str:
        """Insert the node group (CREATE_IN_PROGRESS) with the record."""
        row = {**values, "status": states.CREATE_IN_PROGRESS,
               "status_reason": "Creating the node group.", "node_addresses": []}
        return self._submit(context, cluster_uuid, states.OP_NODEGROUP_CREATE,
                            {"nodegroup_uuid": values["uuid"]},
                            Target(values["uuid"], new=row))

    def nodegroup_update(self, context: RequestContext, cluster_uuid: str,
                         nodegroup_uuid: str, values: dict[str, Any]) -> str:
        """The new values are visible at once; node labels and taints need a stack update,
        the node counts' bounds do not (they are applied and done)."""
        ng = nodegroups.get_in_cluster(None, cluster_uuid, nodegroup_uuid)
        if all(values.get(key) == getattr(ng, key) for key in _NODE_SETTINGS):
            return self._apply_at_once(context, cluster_uuid, states.OP_NODEGROUP_UPDATE,
                                       {"nodegroup_uuid": nodegroup_uuid, "values": values},
                                       {}, nodegroup_uuid, values)
        changes = {**values, "status": states.UPDATE_IN_PROGRESS,
                   "status_reason": "Updating the node group."}
        return self._submit(context, cluster_uuid, states.OP_NODEGROUP_UPDATE,
                            {"nodegroup_uuid": nodegroup_uuid, "values": values},
                            Target(nodegroup_uuid, {nodegroup_uuid: changes}))

    def nodegroup_delete(self, context: RequestContext, cluster_uuid: str,
                         nodegroup_uuid: str) -> str:
        """Accepted in every state: a delete of the node group (or of its cluster) that is
        open already is named and nothing changes; queued requests about the node group are
        superseded. When the operation that runs is about this node group (its create,
        update, resize or upgrade, in the conductor or in Heat) the delete takes it over
        at once (:meth:`_take_over`: its conductor is fenced, the node group's stack is
        then deleted whatever state Heat has it in); behind an operation on another node
        group or on the whole cluster it waits in the queue."""
        args = {"nodegroup_uuid": nodegroup_uuid}
        target = Target(nodegroup_uuid, {nodegroup_uuid: {
            "status": states.DELETE_IN_PROGRESS, "status_reason": "Deleting the node group."}})
        for _ in range(3):
            cluster = clusters.get_by_uuid(None, cluster_uuid)
            blocking = operations.open_of(cluster_uuid)
            for record in blocking:
                if record.kind == states.OP_DELETE or (
                        record.kind == states.OP_NODEGROUP_DELETE
                        and record.nodegroup_id == nodegroup_uuid):
                    return record.uuid
            started = (cluster.operation_args or {}).get("operation_id") \
                if cluster.operation else None
            mine = [r for r in blocking if r.nodegroup_id == nodegroup_uuid]
            if not any(r.state == states.OPERATION_RUNNING or r.uuid == started
                       for r in mine):
                operations.supersede(None, [r.uuid for r in mine if r.uuid != started],
                                     "Superseded by a delete of the node group.")
                return self._submit(context, cluster_uuid, states.OP_NODEGROUP_DELETE,
                                    args, target)
            try:
                record_uuid = self._take_over(context, cluster, mine,
                                              states.OP_NODEGROUP_DELETE, args, target,
                                              "a delete of the node group")
            except _Lost:
                continue  # the running operation ended or moved meanwhile: look again
            self._cast(context, states.OP_NODEGROUP_DELETE, cluster_uuid=cluster_uuid)
            return record_uuid
        raise exception.ConcurrentUpdate(resource="Cluster", ident=cluster_uuid)

    # --- calls (the caller sees the conductor's errors) -----------------------------------
    def cluster_upgrade(self, context: RequestContext, cluster_uuid: str,
                        cluster_template_uuid: str, max_batch_size: int,
                        nodegroup_uuid: str) -> str:
        upgrading = {"status": states.UPDATE_IN_PROGRESS,
                     "status_reason": "Upgrading the node group."}
        return self._submit(context, cluster_uuid, states.OP_UPGRADE,
                            {"cluster_template_uuid": cluster_template_uuid,
                             "max_batch_size": max_batch_size,
                             "nodegroup_uuid": nodegroup_uuid},
                            Target(nodegroup_uuid, {nodegroup_uuid: upgrading}), call=True)

    def rotate_ca_certificate(self, context: RequestContext, cluster_uuid: str) -> str:
        return self._submit(context, cluster_uuid, states.OP_ROTATE_CA, {}, call=True)

    def sign_certificate(self, context: RequestContext, cluster_uuid: str, csr: str,
                         ca_cert_type: str | None = None) -> str:
        """Returns the signed certificate, PEM."""
        return self._call(context, "sign_certificate", cluster_uuid=cluster_uuid, csr=csr,
                          ca_cert_type=ca_cert_type)

    def get_ca_certificate(self, context: RequestContext, cluster_uuid: str,
                           ca_cert_type: str | None = None) -> str:
        """Returns the cluster's CA certificate, PEM."""
        return self._call(context, "get_ca_certificate", cluster_uuid=cluster_uuid,
                          ca_cert_type=ca_cert_type)

    def credential_rotate(self, context: RequestContext, cluster_uuid: str) -> str:
        """A recorded operation like the others (a cast): the new trust is the requester's,
        whose token is recorded sealed with it. Returns the record's UUID."""
        return self._submit(context, cluster_uuid, states.OP_ROTATE_CREDENTIAL, {})


def _default_worker(cluster_uuid: str) -> Any:
    try:
        return settings.default_worker(nodegroups.list(None, {"cluster_id": cluster_uuid}))
    except exception.NodeGroupNotFound:
        return None


#: Node group attributes whose change needs a stack update (the nodes carry them).
_NODE_SETTINGS = ("node_labels", "node_taints")


_DELETING = {"status": states.DELETE_IN_PROGRESS, "status_reason": "Deleting the cluster."}


def _resizing(node_count: int) -> dict[str, Any]:
    return {"node_count": node_count, "status": states.UPDATE_IN_PROGRESS,
            "status_reason": f"Resizing to {node_count} nodes."}
