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
        def run(job: Job) -> Any:
            if job.cluster.operation is None:
                return None
            try:
                return operations.execute(job, OPERATIONS.get(job.cluster.operation))
            except LeaseLost:
                return None
            except Exception:
                if raise_errors:
                    raise
                return None

        wait = CONF.conductor.lease_wait if wait is None else wait
        taken, result = self._under_lease(cluster_uuid, run, wait)
        if not taken:
            LOG.info("Cluster %s is busy elsewhere; leaving its operation", cluster_uuid)
            if raise_errors:
                raise exception.ClusterBusy(cluster=cluster_uuid)
        return result

    def with_lease(self, cluster_uuid: str, func: Callable[[Job], T], wait: float = 0.0,
                   context: Any = None) -> T | None:
        """``func(job)`` under the lease; None (func not run) if the cluster is taken."""
        return self._under_lease(cluster_uuid, func, wait, context)[1]

    def _under_lease(self, cluster_uuid: str, func: Callable[[Job], T], wait: float,
                     context: Any = None) -> tuple[bool, T | None]:
        """(whether the lease was taken, ``func(job)``); ``func`` does not run when the
        lease is taken elsewhere or the cluster is gone."""
        lease = self.leases.acquire(cluster_uuid, wait)
        if lease is None:
            return False, None
        with lease:
            try:
                row = clusters.get_by_uuid(None, cluster_uuid)
            except exception.ClusterNotFound:
                return True, None
            return True, func(Job(lease, row, context))
