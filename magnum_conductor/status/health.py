"""Cluster health: ask each cluster's driver monitor, save health_status and its reason.

Runs in every conductor over its own partition of the clusters in ``states.HEALTH_POLLED``.
A monitor that fails (API unreachable, driver error) yields UNKNOWN with the error as the
reason; nothing escapes the loop.
"""

from __future__ import annotations

from typing import Any

from oslo_log import log as logging

from magnum_common import states
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView
from magnum_conductor.engine.resources import Resources
from magnum_conductor.status.hashring import Partition

LOG = logging.getLogger(__name__)


def poll_cluster(cluster: Any) -> tuple[str, dict[str, Any]] | None:
    """(health_status, reason) from the driver's monitor; None when there is no monitor."""
    try:
        template = cluster_templates.get_by_uuid(None, cluster.cluster_template_id)
        driver = registry.get_driver_for_template(template)
        monitor = driver.get_monitor(Resources(None, cluster), ClusterView.of(
            cluster, template, nodegroups.list(None, {"cluster_id": cluster.uuid})))
        if monitor is None:
            return None
        status, reason = monitor.poll_health()
    except Exception as exc:
        LOG.info("Health poll of cluster %s failed: %s", cluster.uuid, exc)
        return states.UNKNOWN, {"error": f"health poll failed: {exc}"}
    if status not in states.HEALTH_STATUSES:
        return states.UNKNOWN, {"error": f"monitor returned unknown status {status!r}"}
    return status, dict(reason or {})


class HealthPoller:
    def __init__(self, partition: Any) -> None:
        self._partition = partition

    def run_once(self) -> int:
        """Poll this conductor's share; returns how many clusters changed health."""
        partition: Partition = self._partition()
        changed = 0
        for cluster in clusters.in_statuses(states.HEALTH_POLLED):
            if not partition.owns(cluster.uuid):
                continue
            result = poll_cluster(cluster)
            if result is None:
                continue
            status, reason = result
            if (status, reason) == (cluster.health_status, cluster.health_status_reason or {}):
                continue
            try:
                clusters.compare_and_swap(None, cluster.uuid, {},
                                          {"health_status": status,
                                           "health_status_reason": reason})
                changed += 1
            except Exception:
                LOG.exception("Could not save the health of cluster %s", cluster.uuid)
        return changed
