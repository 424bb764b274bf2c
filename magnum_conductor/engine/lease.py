"""The per-cluster lease: at most one conductor works on a cluster at a time.

The lease is two columns of the cluster row (``lock_owner``, ``lock_expires_at``) taken with
one conditional UPDATE (ClusterRepository.acquire_lock), so it behaves the same on SQLite,
MariaDB and PostgreSQL. While a conductor works it renews the lease from a heartbeat thread;
if a renewal finds the lease gone (it expired and another conductor took it) the work is
told to stop through ``Lease.lost`` and every later write under the lease is refused.

Within one process the registry also remembers which clusters are held, because the owner
id is per process: a second acquire by the same owner would succeed in the database, and
releasing it would cut the first holder's lease.
"""

from __future__ import annotations

import threading
import time

from oslo_log import log as logging

from magnum_common import exception
from magnum_common.db.clusters import clusters
from magnum_conductor.conf import CONF

LOG = logging.getLogger(__name__)


class LeaseLost(exception.MagnumException):
    message = "The lease on cluster %(cluster)s was lost; another conductor took it over."


class Lease:
    """A held lease; use as a context manager to renew it in the background."""

    def __init__(self, registry: LeaseRegistry, cluster_uuid: str) -> None:
        self.registry = registry
        self.cluster_uuid = cluster_uuid
        self.owner = registry.owner
        self.lost = threading.Event()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Lease:
        seconds = CONF.conductor.lease_seconds
        self._thread = threading.Thread(target=self._renew, args=(seconds,),
                                        name=f"lease-{self.cluster_uuid[:8]}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def ensure(self) -> None:
        """Raise LeaseLost when the lease is no longer ours (stop before writing)."""
        if self.lost.is_set():
            raise LeaseLost(cluster=self.cluster_uuid)

    def _renew(self, seconds: int) -> None:
        period = max(0.5, seconds / 3.0)
        while not self._done.wait(period):
            try:
                if not clusters.renew_lock(self.cluster_uuid, self.owner, seconds):
                    LOG.warning("Lost the lease on cluster %s", self.cluster_uuid)
                    self.lost.set()
                    return
            except Exception:  # DB blip: the lease is still valid until it expires
                LOG.warning("Could not renew the lease on cluster %s; retrying",
                            self.cluster_uuid, exc_info=True)

    def release(self) -> None:
        if self._done.is_set():
            return
        self._done.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)
        self.registry._forget(self.cluster_uuid)
        if self.lost.is_set():
            return
        try:
            clusters.release_lock(self.cluster_uuid, self.owner)
        except Exception:  # it expires on its own
            LOG.warning("Could not release the lease on cluster %s", self.cluster_uuid,
                        exc_info=True)


class LeaseRegistry:
    """Takes leases for one conductor process (``owner``) and knows which it holds."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self._held: set[str] = set()
        self._mutex = threading.Lock()

    def held(self, cluster_uuid: str) -> bool:
        with self._mutex:
            return cluster_uuid in self._held

    def try_acquire(self, cluster_uuid: str) -> Lease | None:
        """The lease if this process does not hold it and the database grants it."""
        with self._mutex:
            if cluster_uuid in self._held:
                return None
            self._held.add(cluster_uuid)
        try:
            won = clusters.acquire_lock(cluster_uuid, self.owner, CONF.conductor.lease_seconds)
        except Exception:
            self._forget(cluster_uuid)
            raise
        if not won:
            self._forget(cluster_uuid)
            return None
        return Lease(self, cluster_uuid)

    def acquire(self, cluster_uuid: str, wait: float) -> Lease | None:
        """Like try_acquire, retrying for up to ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while True:
            lease = self.try_acquire(cluster_uuid)
            if lease is not None or time.monotonic() >= deadline:
                return lease
            time.sleep(0.2)

    def _forget(self, cluster_uuid: str) -> None:
        with self._mutex:
            self._held.discard(cluster_uuid)
