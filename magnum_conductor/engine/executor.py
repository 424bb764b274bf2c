"""Takes a cluster's lease and runs work on it: recorded operations and one-off jobs.

Used by the RPC endpoints (a cast names the cluster; the operation is read from its row),
by the reconciler (replaying lost or orphaned operations) and by the status sync (writing
Heat's verdict). Whoever cannot get the lease leaves the cluster alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from oslo_log import log as logging

from magnum_common import exception
from magnum_common.db.clusters import clusters
from magnum_conductor.conf import CONF
from magnum_conductor.engine import operations
from magnum_conductor.engine.handlers import OPERATIONS
from magnum_conductor.engine.job import Job
from magnum_conductor.engine.lease import LeaseLost, LeaseRegistry

LOG = logging.getLogger(__name__)
T = TypeVar("T")


class Executor:
    def __init__(self, owner: str) -> None:
        self.leases = LeaseRegistry(owner)

    @property
    def owner(self) -> str:
        return self.leases.owner

    def run_recorded(self, cluster_uuid: str, wait: float | None = None,
                     raise_errors: bool = False) -> Any:
        """Run the operation recorded on the cluster, if it is free; None when not taken."""
        wait = CONF.conductor.lease_wait if wait is None else wait
        lease = self.leases.acquire(cluster_uuid, wait)
        if lease is None:
            LOG.info("Cluster %s is busy elsewhere; leaving its operation", cluster_uuid)
            if raise_errors:
                raise exception.ClusterBusy(cluster=cluster_uuid)
            return None
        with lease:
            try:
                row = clusters.get_by_uuid(None, cluster_uuid)
            except exception.ClusterNotFound:
                return None
            if row.operation is None:
                return None
            job = Job(lease, row)
            try:
                return operations.execute(job, OPERATIONS.get(row.operation))
            except LeaseLost:
                return None
            except Exception:
                if raise_errors:
                    raise
                return None

    def with_lease(self, cluster_uuid: str, func: Callable[[Job], T], wait: float = 0.0,
                   context: Any = None) -> T | None:
        """``func(job)`` under the lease; None (func not run) if the cluster is taken."""
        lease = self.leases.acquire(cluster_uuid, wait)
        if lease is None:
            return None
        with lease:
            try:
                row = clusters.get_by_uuid(None, cluster_uuid)
            except exception.ClusterNotFound:
                return None
            return func(Job(lease, row, context))
