"""One conductor process in-process (SQLite, RabbitMQ): its identity, heartbeats on both
rows, an RPC server on its topic, its loops, and nothing left when it stops."""

from __future__ import annotations

import subprocess
import sys
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



PRELOAD = """
import gc, sys
from magnum_common import config, rpc
config.parse_args(sys.argv[1:], default_config_files=[])
from magnum_conductor import service
before = {"drivers.k8s_ubuntu_v1.driver", "novaclient.client"} & set(sys.modules)
service.preload()
after = {"drivers.k8s_ubuntu_v1.driver", "novaclient.client"} & set(sys.modules)
print(sorted(before), sorted(after), gc.get_freeze_count() > 0, rpc._transport is None)
"""


def test_the_master_preloads_what_workers_use_and_freezes_it_connection_free(tmp_path):
    conf = tmp_path / "magnum.conf"
    conf.write_text("[DEFAULT]\ntransport_url = rabbit://guest:guest@127.0.0.1:5672/\n"
                    f"[database]\nconnection = sqlite:///{tmp_path / 'm.sqlite'}\n")
    out = subprocess.run([sys.executable, "-c", PRELOAD, "--config-file", str(conf)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    # imported by the master, not by each worker on its first operation; frozen; and the
    # messaging transport built and dropped (a worker must never inherit a connection)
    assert out.split("\n")[-2] == ("[] ['drivers.k8s_ubuntu_v1.driver', "
                                   "'novaclient.client'] True True")
