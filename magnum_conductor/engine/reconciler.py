"""Nothing stays stuck: replay recorded operations nobody is working on.

An operation recorded on a cluster row is normally started by the cast that follows it.
When the cast was lost (broker down, conductor gone before reading it) or the conductor
died half-way (its lease then expires), the row still says what to do:
ClusterRepository.pending_operations lists those older than ``[conductor] pending_grace``
whose lease is free or expired, and any conductor's reconciler takes them over. The lease
decides who wins when several reconcilers see the same row; the handlers resume from
wherever the previous attempt stood.
"""

from __future__ import annotations

import datetime
import threading
from concurrent import futures

from oslo_log import log as logging

from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations as records
from magnum_conductor.conf import CONF
from magnum_conductor.engine import operations
from magnum_conductor.engine.executor import Executor

LOG = logging.getLogger(__name__)


class Reconciler:
    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self._pool = futures.ThreadPoolExecutor(CONF.conductor.reconcile_workers,
                                                thread_name_prefix="reconcile")
        self._inflight: set[str] = set()
        self._mutex = threading.Lock()
        self.replayed = 0

    def run_once(self) -> list[str]:
        """Submit every orphaned operation; returns the cluster UUIDs submitted."""
        older_than = db_api.server_now() - datetime.timedelta(
            seconds=CONF.conductor.pending_grace)
        submitted = []
        for row in clusters.pending_operations(older_than, limit=200):
            with self._mutex:
                if row.uuid in self._inflight or self.executor.leases.held(row.uuid):
                    continue
                self._inflight.add(row.uuid)
            LOG.info("Replaying %s of cluster %s (recorded %s, lease %s)", row.operation,
                     row.uuid, row.operation_at, row.lock_owner or "free")
            self._pool.submit(self._replay, row.uuid)
            submitted.append(row.uuid)
        for cluster_uuid in records.stalled(older_than):
            if operations.advance(cluster_uuid) is not None:
                LOG.info("Started the next queued operation of cluster %s", cluster_uuid)
                submitted.append(cluster_uuid)
        return submitted

    def _replay(self, cluster_uuid: str) -> None:
        try:
            self.executor.run_recorded(cluster_uuid, wait=0)
            self.replayed += 1
        except Exception:
            LOG.exception("Replaying the operation of cluster %s failed", cluster_uuid)
        finally:
            with self._mutex:
                self._inflight.discard(cluster_uuid)

    def stop(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
