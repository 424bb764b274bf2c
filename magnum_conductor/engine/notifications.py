"""CADF notifications ``magnum.cluster.{create,update,delete}`` (pending/success/failure).

Emitted only when ``[oslo_messaging_notifications] driver`` is set, on the notification
transport, with publisher ``container-infra.<host>``; the payload is a pycadf activity event
whose target carries a ``cluster_data`` attachment with the cluster's public fields.
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg
from oslo_log import log as logging
from pycadf import attachment as cadf_attachment
from pycadf import cadftaxonomy as taxonomy
from pycadf import cadftype, eventfactory, resource

from magnum_common import rpc, states
from magnum_common.context import RequestContext

CONF = cfg.CONF
LOG = logging.getLogger(__name__)

CREATE = taxonomy.ACTION_CREATE
UPDATE = taxonomy.ACTION_UPDATE
DELETE = taxonomy.ACTION_DELETE
PENDING = taxonomy.OUTCOME_PENDING
SUCCESS = taxonomy.OUTCOME_SUCCESS
FAILURE = taxonomy.OUTCOME_FAILURE
CLUSTER_TYPE_URI = "service/magnum/cluster"

_FIELDS = ("status", "status_reason", "project_id", "created_at", "updated_at",
           "cluster_template_id", "keypair", "labels", "master_flavor_id", "flavor_id",
           "stack_id", "health_status", "create_timeout", "api_address", "discovery_url")

_notifier = None


def enabled() -> bool:
    rpc.get_notification_transport()  # registers [oslo_messaging_notifications]
    return bool(CONF.oslo_messaging_notifications.driver)


def _get_notifier() -> Any:
    global _notifier
    if _notifier is None:
        _notifier = rpc.get_notifier(f"container-infra.{CONF.host}")
    return _notifier


def action_for_status(status: str | None) -> str | None:
    """DELETE_* -> delete, CREATE_* -> create, UPDATE_* / ROLLBACK_* -> update."""
    action = states.action_of(status)
    return {"CREATE": CREATE, "DELETE": DELETE, "UPDATE": UPDATE,
            "ROLLBACK": UPDATE}.get(action or "")


def _cluster_data(cluster: Any, nodegroups: list[Any]) -> dict[str, Any]:
    data = {name: getattr(cluster, name, None) for name in _FIELDS}
    for key in ("created_at", "updated_at"):
        if data[key] is not None:
            data[key] = data[key].isoformat()
    data["docker_volume_size:"] = cluster.docker_volume_size
    masters = [ng for ng in nodegroups if ng.role == "master"]
    workers = [ng for ng in nodegroups if ng.role != "master"]
    data["master_count"] = sum(ng.node_count or 0 for ng in masters)
    data["node_count"] = sum(ng.node_count or 0 for ng in workers)
    data["master_addresses"] = [a for ng in masters for a in ng.node_addresses or []]
    data["node_addresses"] = [a for ng in workers for a in ng.node_addresses or []]
    return data


def build_event(context: RequestContext | None, action: str, outcome: str, cluster: Any,
                nodegroups: list[Any]) -> dict[str, Any]:
    """The CADF event dict of one cluster notification."""
    context = context or RequestContext()
    initiator = resource.Resource(typeURI=taxonomy.ACCOUNT_USER,
                                  id=context.user_id or taxonomy.UNKNOWN)
    initiator.project_id = context.project_id
    initiator.domain_id = context.user_domain_id
    target = resource.Resource(typeURI=CLUSTER_TYPE_URI, id=cluster.uuid,
                               name=cluster.name or cluster.uuid)
    target.add_attachment(cadf_attachment.Attachment(
        typeURI=CLUSTER_TYPE_URI, content=_cluster_data(cluster, nodegroups),
        name="cluster_data"))
    event = eventfactory.EventFactory().new_event(
        eventType=cadftype.EVENTTYPE_ACTIVITY, outcome=outcome, action=action,
        initiator=initiator, target=target,
        observer=resource.Resource(typeURI=CLUSTER_TYPE_URI))
    return event.as_dict()


def emit(context: RequestContext | None, action: str | None, outcome: str, cluster: Any,
         nodegroups: list[Any] | None = None) -> None:
    """Send one notification; a failure to notify never fails the operation."""
    if not enabled() or action is None:
        return
    try:
        payload = build_event(context, action, outcome, cluster, nodegroups or [])
        notifier = _get_notifier()
        event_type = f"magnum.cluster.{action}"
        send = notifier.error if outcome == FAILURE else notifier.info
        send(context or RequestContext(), event_type, payload)
    except Exception:
        LOG.warning("Could not send the %s/%s notification of cluster %s", action, outcome,
                    cluster.uuid, exc_info=True)
