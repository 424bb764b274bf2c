"""One conductor process in-process (SQLite, RabbitMQ): its identity, heartbeats on both
rows, an RPC server on its topic, its loops, and nothing left when it stops."""

from __future__ import annotations

import uuid

import oslo_messaging
from oslo_config import cfg

from magnum_common import rpc
from magnum_common.db.services import magnum_services
from magnum_conductor import service
from magnum_conductor.conf import BINARY

CONF = cfg.CONF


def test_a_conductor_starts_beats_and_stops_cleanly(db):
    CONF.register_opts(oslo_messaging.transport._transport_opts)
    CONF.set_override("transport_url", "rabbit://guest:guest@127.0.0.1:5672/")
    CONF.set_override("topic", f"magnum-unit-{uuid.uuid4().hex[:12]}", "conductor")
    CONF.set_override("host", "host-a")
    CONF.set_override("workers", 3, "conductor")
    assert service.workers() == 3
    conductor = service.Conductor(worker=2)
    assert conductor.identity.id.startswith("host-a:2:")
    try:
        conductor.start()
        row = magnum_services.get_by_host_and_binary("host-a", BINARY)
        assert row is not None and row.report_count == 1
        names = [loop.name for loop in conductor.loops]
        assert names[:4] == ["heartbeat", "reconciler", "status-sync", "orphan-sweeper"]
        assert all(loop._thread.is_alive() for loop in conductor.loops)
    finally:
        conductor.stop()
        rpc.cleanup()
    assert not any(loop._thread.is_alive() for loop in conductor.loops)
