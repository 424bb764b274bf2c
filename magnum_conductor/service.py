"""One conductor process: RPC server, heartbeat, reconciler, status sync, health polls,
orphan sweeper.

Identity: the host (``[DEFAULT] host``, the magnum_service row shown by mservices), the
worker index on that host, and a random suffix; the whole string is the lease owner and the
process's member name in the status sync's ring (its own magnum_service_process row), so
leases and polling are per process, two conductors sharing a host name are two members, and
a restarted process never mistakes an older lease for its own.
"""

from __future__ import annotations

import dataclasses
import os

import cotyledon
from oslo_log import log as logging

from magnum_common import prefork, rpc, utils
from magnum_common.db import api as db_api
from magnum_common.db.services import magnum_services
from magnum_conductor.conf import BINARY, CONF
from magnum_conductor.engine import cleanup
from magnum_conductor.engine.endpoints import ConductorEndpoint
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.periodic import PeriodicLoop
from magnum_conductor.engine.reconciler import Reconciler
from magnum_conductor.status.health import HealthPoller
from magnum_conductor.status.sync import StatusSync

LOG = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Identity:
    host: str
    worker: int
    id: str

    @classmethod
    def create(cls, worker: int = 0) -> Identity:
        host = CONF.host
        return cls(host, worker, f"{host}:{worker}:{utils.short_id()}")


class Conductor:
    """Everything one conductor process runs; start() / stop() (tests run it in-process)."""

    def __init__(self, worker: int = 0) -> None:
        self.identity = Identity.create(worker)
        self.executor = Executor(self.identity.id)
        self.endpoint = ConductorEndpoint(self.executor)
        self.reconciler = Reconciler(self.executor)
        self.sync = StatusSync(self.executor)
        self.health = HealthPoller(self.sync.partition)
        self.server = None
        self.loops: list[PeriodicLoop] = []

    def heartbeat(self) -> None:
        """The host's service row (what mservices shows) and this process's own row (what
        the status sync's ring is made of)."""
        magnum_services.heartbeat(self.identity.host, BINARY)
        magnum_services.process_heartbeat(self.identity.id, self.identity.host, BINARY)

    def start(self) -> None:
        LOG.info("Conductor %s starting (topic %s)", self.identity.id, CONF.conductor.topic)
        try:
            self.heartbeat()
        except Exception:
            LOG.exception("First heartbeat failed; the heartbeat loop keeps trying")
        self.server = rpc.get_server(CONF.conductor.topic, self.identity.id, [self.endpoint])
        self.server.start()
        opts = CONF.conductor
        self.loops = [
            PeriodicLoop("heartbeat", opts.report_interval, self.heartbeat,
                         initial_delay=opts.report_interval),
            PeriodicLoop("reconciler", opts.reconcile_interval, self.reconciler.run_once,
                         initial_delay=1.0),
            PeriodicLoop("status-sync", opts.sync_interval, self.sync.run_once),
            PeriodicLoop("orphan-sweeper", opts.orphan_sweep_interval, cleanup.sweep,
                         initial_delay=opts.orphan_sweep_interval),
        ]
        if CONF.kubernetes.health_polling_interval >= 0:
            self.loops.append(PeriodicLoop("health", max(1, CONF.kubernetes.
                                                         health_polling_interval),
                                           self.health.run_once))
        for loop in self.loops:
            loop.start()

    def stop(self) -> None:
        for loop in self.loops:
            loop.stop(timeout=5)
        if self.server is not None:
            self.server.stop()
            self.server.wait()
        self.reconciler.stop()
        try:
            magnum_services.forget_process(self.identity.id)
        except Exception:  # its row then ages out of the ring
            LOG.warning("Could not remove the process row of %s", self.identity.id,
                        exc_info=True)
        LOG.info("Conductor %s stopped", self.identity.id)


class ConductorService(cotyledon.Service):
    """A cotyledon worker wrapping one Conductor."""

    name = BINARY

    def __init__(self, worker_id: int) -> None:
        super().__init__(worker_id)
        db_api.dispose_engine()  # never share pooled connections across fork
        self.conductor = Conductor(worker_id)

    def run(self) -> None:
        self.conductor.start()

    def terminate(self) -> None:
        self.conductor.stop()
        rpc.cleanup()


def workers() -> int:
    return CONF.conductor.workers or os.cpu_count() or 1


def preload() -> None:
    """Import in the master what each worker would otherwise import for its first
    operation (the drivers and their clients, the certificate and trust modules, the
    database and messaging drivers), then freeze it: the workers forked next share those
    pages copy-on-write (``magnum_common.prefork``)."""
    from novaclient import client as _nova_client  # noqa: F401

    from magnum_common.drivers import registry
    from magnum_conductor.identity import trust  # noqa: F401
    from magnum_conductor.pki import cluster_certs  # noqa: F401

    registry.all_drivers()
    prefork.import_backends()
    prefork.freeze()


def launch() -> cotyledon.ServiceManager:
    count = workers()
    preload()
    manager = cotyledon.ServiceManager()
    manager.add(ConductorService, workers=count)
    return manager
