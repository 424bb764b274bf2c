"""RPC on RabbitMQ quorum queues (``[oslo_messaging_rabbit] rabbit_quorum_queue``).

A vhost of the machine's RabbitMQ of the test's own (a queue declared classic cannot be
redeclared quorum), one conductor and the API's RPC client on it: a cast (cluster create,
through to CREATE_COMPLETE on the stand-in) and a call (the CA certificate, answered on the
reply queue) both go through, and the conductors' topic queue is a quorum queue.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import support
from oslo_config import cfg

from magnum_common import rpc, states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db.clusters import clusters

CONF = cfg.CONF
VHOST = f"magnum_quorum_{os.environ.get('PYTEST_XDIST_WORKER', 'gw0')}"


def _rabbitmqctl(*args: str) -> str:
    return subprocess.run(["rabbitmqctl", "-q", *args], capture_output=True, text=True,
                          timeout=120, check=True).stdout


@pytest.fixture
def quorum_vhost():
    assert shutil.which("rabbitmqctl"), "rabbitmqctl (the machine's RabbitMQ) is needed"
    subprocess.run(["rabbitmqctl", "-q", "delete_vhost", VHOST], capture_output=True,
                   timeout=120)
    _rabbitmqctl("add_vhost", VHOST)
    _rabbitmqctl("set_permissions", "-p", VHOST, "guest", ".*", ".*", ".*")
    yield VHOST
    subprocess.run(["rabbitmqctl", "-q", "delete_vhost", VHOST], capture_output=True,
                   timeout=120)


def test_casts_and_calls_on_quorum_queues(quorum_vhost, conductor_options, db):
    from magnum_conductor.service import Conductor

    rpc.cleanup()
    rpc.get_transport()  # registers transport_url and [oslo_messaging_rabbit]
    rpc.cleanup()
    CONF.set_override("transport_url", f"rabbit://guest:guest@127.0.0.1:5672/{quorum_vhost}")
    CONF.set_override("rabbit_quorum_queue", True, "oslo_messaging_rabbit")
    conductor = Conductor()
    conductor.start()
    try:
        api = ConductorAPI()
        ctx = support.requester()
        cluster = support.record_cluster(ctx, support.make_template())
        api.cluster_create(ctx, cluster.uuid)
        support.wait_for(lambda: support.cluster_status(cluster.uuid) ==
                         states.CREATE_COMPLETE, what="CREATE_COMPLETE over quorum queues")
        assert clusters.get_by_uuid(None, cluster.uuid).ca_cert_ref
        assert "BEGIN CERTIFICATE" in api.get_ca_certificate(ctx, cluster.uuid)

        queues = dict(line.split("\t")[:2] for line in _rabbitmqctl(
            "list_queues", "-p", quorum_vhost, "name", "type").splitlines() if "\t" in line)
        topic = CONF.conductor.topic
        assert queues[topic] == "quorum", queues
        assert queues[f"{topic}.{conductor.identity.id}"] == "quorum", queues
    finally:
        conductor.stop()
        rpc.cleanup()
