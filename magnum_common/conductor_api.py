"""The RPC client the API uses to reach the conductors (topic ``[conductor] topic``).

Every state-changing request is made durable before it is sent: the API records the
operation and its arguments on the cluster row (``operation``, ``operation_args``) in the
same UPDATE that moves the cluster's status, then casts just the cluster's UUID. The record
holds the requester's identity and, sealed with the ``[crypto]`` keys, the requester's token
(``RequestContext.record``); messages carry the identity only (``RequestContext.to_dict``).
A conductor reads the recorded operation from the row, so a cast that is lost (broker down,
conductor killed) is replayed by any conductor's reconciler, and the cast itself carries
nothing that the row does not already hold.

Casts are sent with a bounded retry: when the broker is unreachable the caller gets
ServiceUnavailable (HTTP 503) quickly and the recorded operation waits for recovery.
"""

from __future__ import annotations

from typing import Any

import oslo_messaging as messaging
from kombu import exceptions as kombu_exc
from oslo_log import log as logging

from magnum_common import exception, rpc, states
from magnum_common.config import CONF
from magnum_common.context import RequestContext
from magnum_common.db.clusters import clusters

LOG = logging.getLogger(__name__)

#: How a refusal names the operation (the contract's wording: "Upgrading a cluster when
#: status is ... is not supported.").
_VERBS = {states.OP_UPDATE: "Updating", states.OP_RESIZE: "Resizing",
          states.OP_UPGRADE: "Upgrading", states.OP_ROTATE_CA: "Updating"}

#: What a broker that cannot be reached raises through oslo.messaging (the rabbit driver
#: lets kombu's connection errors through when the retries are exhausted).
_UNREACHABLE = (messaging.MessageDeliveryFailure, kombu_exc.OperationalError, OSError)


class ConductorAPI:
    """One method per conductor endpoint; casts carry the cluster UUID only."""

    def __init__(self, topic: str | None = None) -> None:
        self._topic = topic

    @property
    def _client(self) -> messaging.RPCClient:
        return rpc.get_client(topic=self._topic)

    def _cast(self, context: RequestContext, method: str, **kwargs: Any) -> None:
        try:
            self._client.prepare(retry=CONF.conductor.cast_retry).cast(context, method, **kwargs)
        except _UNREACHABLE as exc:
            raise exception.ServiceUnavailable(
                reason="the message broker is unreachable; the request is recorded and "
                "will be resumed by a conductor") from exc

    def _call(self, context: RequestContext, method: str, **kwargs: Any) -> Any:
        try:
            return self._client.prepare(retry=CONF.conductor.cast_retry).call(
                context, method, **kwargs)
        except messaging.MessagingTimeout as exc:
            raise exception.ServiceUnavailable(
                reason="no conductor answered within the RPC timeout") from exc
        except _UNREACHABLE as exc:
            raise exception.ServiceUnavailable(reason="the message broker is unreachable") from exc

    def _record(self, context: RequestContext, cluster_uuid: str, operation: str,
                args: dict[str, Any], values: dict[str, Any] | None = None,
                expected: dict[str, Any] | None = None) -> None:
        """Record the operation, only from a status it may start from (one UPDATE, so a
        refused request leaves the row as it was)."""
        gate = states.OPERATION_GATES[operation]
        expected = {**(expected or {}), **({"status": gate} if gate is not None else {})}
        if clusters.record_operation(context, cluster_uuid, operation,
                                     {**args, **context.record()},
                                     values, expected):
            return
        cluster = clusters.get_by_uuid(context, cluster_uuid)
        if cluster.operation is not None:
            raise exception.OperationInProgress(cluster_name=cluster.name or cluster_uuid)
        if gate is not None and cluster.status not in gate:
            raise exception.NotSupported(
                operation=f'{_VERBS[operation]} a cluster when status is "{cluster.status}"')
        raise exception.ConcurrentUpdate(resource="Cluster", ident=cluster_uuid)

    def _call_recorded(self, context: RequestContext, method: str, cluster_uuid: str) -> None:
        """A call for a recorded operation: a conductor that cannot take the cluster now
        leaves it recorded, and the reconciler starts it once the cluster is free."""
        try:
            self._call(context, method, cluster_uuid=cluster_uuid)
        except exception.ClusterBusy:
            LOG.info("Cluster %s is busy; its %s stays recorded", cluster_uuid, method)

    # --- casts (the row already records the operation) ------------------------------------
    def cluster_create(self, context: RequestContext, cluster_uuid: str) -> None:
        """Cast after ClusterRepository.create_with_nodegroups recorded OP_CREATE."""
        self._cast(context, "cluster_create", cluster_uuid=cluster_uuid)

    def cluster_update(self, context: RequestContext, cluster_uuid: str, node_count: int,
                       health_status: str | None = None,
                       health_status_reason: dict | None = None,
                       rollback: bool = False) -> None:
        self._record(context, cluster_uuid, states.OP_UPDATE,
                     {"node_count": node_count, "health_status": health_status,
                      "health_status_reason": health_status_reason, "rollback": rollback})
        self._cast(context, "cluster_update", cluster_uuid=cluster_uuid)

    def cluster_resize(self, context: RequestContext, cluster_uuid: str, node_count: int,
                       nodegroup_uuid: str, nodes_to_remove: list[str] | None = None) -> None:
        self._record(context, cluster_uuid, states.OP_RESIZE,
                     {"node_count": node_count, "nodegroup_uuid": nodegroup_uuid,
                      "nodes_to_remove": list(nodes_to_remove or [])})
        self._cast(context, "cluster_resize", cluster_uuid=cluster_uuid)

    def cluster_delete(self, context: RequestContext, cluster_uuid: str) -> None:
        self._record(context, cluster_uuid, states.OP_DELETE, {})
        self._cast(context, "cluster_delete", cluster_uuid=cluster_uuid)

    def nodegroup_create(self, context: RequestContext, cluster_uuid: str,
                         nodegroup_uuid: str) -> None:
        """The API inserted the node group row (CREATE_IN_PROGRESS) before this."""
        self._record(context, cluster_uuid, states.OP_NODEGROUP_CREATE,
                     {"nodegroup_uuid": nodegroup_uuid})
        self._cast(context, "nodegroup_create", cluster_uuid=cluster_uuid)

    def nodegroup_update(self, context: RequestContext, cluster_uuid: str,
                         nodegroup_uuid: str, values: dict[str, Any]) -> None:
        self._record(context, cluster_uuid, states.OP_NODEGROUP_UPDATE,
                     {"nodegroup_uuid": nodegroup_uuid, "values": values})
        self._cast(context, "nodegroup_update", cluster_uuid=cluster_uuid)

    def nodegroup_delete(self, context: RequestContext, cluster_uuid: str,
                         nodegroup_uuid: str) -> None:
        self._record(context, cluster_uuid, states.OP_NODEGROUP_DELETE,
                     {"nodegroup_uuid": nodegroup_uuid})
        self._cast(context, "nodegroup_delete", cluster_uuid=cluster_uuid)

    # --- calls (the caller sees the conductor's errors) -----------------------------------
    def cluster_upgrade(self, context: RequestContext, cluster_uuid: str,
                        cluster_template_uuid: str, max_batch_size: int,
                        nodegroup_uuid: str) -> None:
        self._record(context, cluster_uuid, states.OP_UPGRADE,
                     {"cluster_template_uuid": cluster_template_uuid,
                      "max_batch_size": max_batch_size, "nodegroup_uuid": nodegroup_uuid})
        self._call_recorded(context, "cluster_upgrade", cluster_uuid)

    def rotate_ca_certificate(self, context: RequestContext, cluster_uuid: str) -> None:
        self._record(context, cluster_uuid, states.OP_ROTATE_CA, {})
        self._call_recorded(context, "rotate_ca_certificate", cluster_uuid)

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

    def credential_rotate(self, context: RequestContext, cluster_uuid: str) -> None:
        """The requester's token travels sealed: the new trust is the requester's."""
        self._call(context, "credential_rotate", cluster_uuid=cluster_uuid,
                   credentials=context.sealed_credentials())
