"""The per-cluster lease: at most one conductor works on a cluster at a time.

The lease is two columns of the cluster row (``lock_owner``, ``lock_expires_at``) taken with
one conditional UPDATE (ClusterRepository.acquire_lock), so it behaves the same on SQLite,
MariaDB and PostgreSQL. While a conductor works it renews the lease from a heartbeat thread;
if a renewal finds the lease gone (it expired and another conductor took it) the work is
told to stop through ``Lease.lost`` and every later write under the lease is refused.

A lease may carry a deadline (``limit``): the operation's maximum run time. Past it the
renewing thread stops renewing, refuses every later write of the worker (which may still be
waiting for a service that never answers), has the failure recorded in the same UPDATE
that frees the lease, and forgets the cluster, so the next request can start at once.

Within one process the registry also remembers which clusters are held, so one process
never works on a cluster twice. Each lease writes a token of its own (the process's owner
id and a suffix) into ``lock_owner``: when a DELETE takes a cluster over (the API frees the
lease in the transaction that records the delete), the process still running the superseded
operation may take the cluster again for the delete, and the old worker's writes, made
against its own token, are all refused.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable

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
        #: What this lease writes into ``lock_owner``: the process's id, then its own part.
        self.owner = f"{registry.owner}/{uuid.uuid4().hex[:8]}"
        self.lost = threading.Event()
        #: Set when the deadline passed: the worker's writes are refused from then on.
        self.overrun = threading.Event()
        #: The thread doing the work (the one that entered the lease).
        self.worker: int | None = None
        self._deadline: float | None = None
        self._on_overrun: Callable[[Lease], None] | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Lease:
        self.worker = threading.get_ident()
        seconds = CONF.conductor.lease_seconds
        self._thread = threading.Thread(target=self._renew, args=(seconds,),
                                        name=f"lease-{self.cluster_uuid[:8]}", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()

    def ensure(self) -> None:
        """Raise LeaseLost when the lease is no longer ours (stop before writing)."""
        if self.lost.is_set() or (self.overrun.is_set()
                                  and threading.get_ident() == self.worker):
            raise LeaseLost(cluster=self.cluster_uuid)

    def confirm(self) -> None:
        """Like ensure(), and ask the database: between the steps of an operation, a DELETE
        that took the cluster over (freeing the lease) stops the work at once."""
        self.ensure()
        if self.taken_over():
            raise LeaseLost(cluster=self.cluster_uuid)

    def taken_over(self) -> bool:
        """Whether the lease is no longer ours in the database (lost is then set)."""
        if self.lost.is_set():
            return True
        try:
            holder = clusters.get_by_uuid(None, self.cluster_uuid).lock_owner
        except exception.ClusterNotFound:
            holder = None
        if holder != self.owner:
            self.lost.set()
            return True
        return False

    def limit(self, seconds: float, on_overrun: Callable[[Lease], None]) -> None:
        """Give the work ``seconds``; past them ``on_overrun(lease)`` runs on the renewing
        thread, records the failure and releases the lease (in one UPDATE)."""
        self._deadline = time.monotonic() + seconds
        self._on_overrun = on_overrun

    def _renew(self, seconds: int) -> None:
        period = max(0.5, seconds / 3.0)
        while True:
            wait = period
            if self._deadline is not None:
                wait = max(0.0, min(period, self._deadline - time.monotonic()))
            if self._done.wait(wait):
                return
            if self._deadline is not None and time.monotonic() >= self._deadline:
                self._stop_overrun()
                return
            try:
                if not clusters.renew_lock(self.cluster_uuid, self.owner, seconds):
                    LOG.warning("Lost the lease on cluster %s", self.cluster_uuid)
                    self.lost.set()
                    return
            except Exception:  # DB blip: the lease is still valid until it expires
                LOG.warning("Could not renew the lease on cluster %s; retrying",
                            self.cluster_uuid, exc_info=True)

    def _stop_overrun(self) -> None:
        self.overrun.set()
        LOG.warning("Cluster %s: the operation overran its maximum run time; stopping it",
                    self.cluster_uuid)
        try:
            if self._on_overrun is not None:
                self._on_overrun(self)
        except Exception:  # the lease then simply expires
            LOG.exception("Could not record the overrun on cluster %s", self.cluster_uuid)
        self.lost.set()
        self.registry._forget(self.cluster_uuid, self)

    def release(self) -> None:
        if self._done.is_set():
            return
        self._done.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(5)
        self.registry._forget(self.cluster_uuid, self)
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
        self._held: dict[str, Lease] = {}
        self._mutex = threading.Lock()

    def held(self, cluster_uuid: str) -> bool:
        """Whether this process works on the cluster (a lease known lost does not count)."""
        with self._mutex:
            lease = self._held.get(cluster_uuid)
        return lease is not None and not lease.lost.is_set()

    def try_acquire(self, cluster_uuid: str) -> Lease | None:
        """The lease if this process does not hold it (or holds one taken over) and the
        database grants it."""
        with self._mutex:
            old = self._held.get(cluster_uuid)
        if old is not None and not old.taken_over():
            return None
        lease = Lease(self, cluster_uuid)
        with self._mutex:
            if self._held.get(cluster_uuid) is not old:
                return None
            self._held[cluster_uuid] = lease
        try:
            won = clusters.acquire_lock(cluster_uuid, lease.owner,
                                        CONF.conductor.lease_seconds)
        except Exception:
            self._forget(cluster_uuid, lease)
            raise
        if not won:
            self._forget(cluster_uuid, lease)
            return None
        return lease

    def acquire(self, cluster_uuid: str, wait: float) -> Lease | None:
        """Like try_acquire, retrying for up to ``wait`` seconds."""
        deadline = time.monotonic() + wait
        while True:
            lease = self.try_acquire(cluster_uuid)
            if lease is not None or time.monotonic() >= deadline:
                return lease
            time.sleep(0.2)

    def _forget(self, cluster_uuid: str, lease: Lease) -> None:
        with self._mutex:
            if self._held.get(cluster_uuid) is lease:
                del self._held[cluster_uuid]
