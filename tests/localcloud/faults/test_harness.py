"""The harness itself: the proxies, the TCP cut, the private RabbitMQ node and the
namespace host with its own clock do what the cases rely on, and a cluster's life without
any fault goes through them and leaves nothing behind."""

from __future__ import annotations

import datetime
import shutil
import socket
import subprocess
import sys

import faultharness as fh
import pytest
import requests

pytestmark = pytest.mark.localcloud


def _demo_via(proxy: fh.FaultProxy, listener: str = "keystone"):
    from keystoneauth1 import loading, session

    auth = dict(fh._clouds()["localcloud-demo"]["auth"], auth_url=proxy.url(listener) + "/v3")
    return session.Session(auth=loading.get_plugin_loader("password").load_from_options(**auth))


def test_catalog_names_the_proxies(proxy):
    sess = _demo_via(proxy)
    assert sess.get_endpoint(service_type="orchestration", interface="public").startswith(
        proxy.url("heat") + "/v1/")
    assert sess.get_endpoint(service_type="key-manager", interface="public") == \
        proxy.url("barbican")
    assert sess.get_endpoint(service_type="identity", interface="public") == \
        proxy.url("keystone") + "/v3"
    api_side = _demo_via(proxy, "keystone-api")
    assert api_side.get_endpoint(service_type="identity", interface="public") == \
        proxy.url("keystone-api") + "/v3"


def test_hold_release_drop_error_stall_and_down(proxy):
    proxy.reset()
    sess = _demo_via(proxy)
    heat = sess.get_endpoint(service_type="orchestration", interface="public")
    token = sess.get_token()
    since = proxy.last_event_id()
    rule = proxy.rule("hold", listener="heat", method="GET", path="/stacks", times=2)

    import threading

    answers: list = []

    def call():
        try:
            answers.append(requests.get(heat + "/stacks", headers={"X-Auth-Token": token},
                                        timeout=20).status_code)
        except requests.RequestException as exc:
            answers.append(type(exc).__name__)

    first = threading.Thread(target=call)
    first.start()
    held = proxy.wait_event(10, "held GET", since=since, rule=rule, state="held")
    assert not answers
    proxy.release(held["id"])
    first.join(20)
    assert answers == [200]

    second = threading.Thread(target=call)
    second.start()
    held = proxy.wait_event(10, "held GET", since=held["id"], rule=rule, state="held")
    proxy.drop(held["id"])
    second.join(20)
    assert answers[1] == "ConnectionError"

    proxy.rule("error", listener="heat", status=502, times=1)
    assert requests.get(heat + "/stacks", headers={"X-Auth-Token": token},
                        timeout=20).status_code == 502
    assert requests.get(heat + "/stacks", headers={"X-Auth-Token": token},
                        timeout=20).status_code == 200

    proxy.rule("stall", listener="heat")
    with pytest.raises(requests.Timeout):
        requests.get(heat + "/stacks", headers={"X-Auth-Token": token}, timeout=2)
    proxy.reset()

    proxy.down("barbican")
    with pytest.raises(requests.ConnectionError):
        requests.get(proxy.url("barbican") + "/v1/secrets", timeout=5)
    proxy.up("barbican")
    assert requests.get(proxy.url("barbican") + "/", timeout=10).status_code in (200, 300)


def _greeting(address: str) -> bytes:
    host, _, port = address.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        return sock.recv(16)


def test_tcp_cut_refuses_until_restored(localcloud):
    cut = fh.TcpCut(fh.SERVERS["mysql"][:2])
    try:
        assert _greeting(cut.address)          # MariaDB's handshake, through the proxy
        cut.cut()
        with pytest.raises(OSError):
            _greeting(cut.address)
        cut.restore()
        assert _greeting(cut.address)
    finally:
        cut.stop()


def test_namespace_host_reaches_the_services_with_its_own_clock(localcloud):
    assert shutil.which("faketime"), "libfaketime is missing: apt-get install faketime"
    host = fh.NetnsHost([3306])
    try:
        probe = ("import datetime, socket; s = socket.create_connection(('127.0.0.1', 3306), "
                 "timeout=5); print(len(s.recv(16)), datetime.datetime.now().timestamp())")
        res = subprocess.run([*host.prefix(60), sys.executable, "-c", probe],
                             capture_output=True, text=True, timeout=60)
        assert res.returncode == 0, res.stderr
        received, then = res.stdout.split()
        assert int(received) > 0
        ahead = float(then) - datetime.datetime.now().timestamp()
        assert 50 < ahead < 70, f"the namespace's clock is {ahead:.0f}s off, not +60s"
        res = subprocess.run([*host.prefix(), sys.executable, "-c",
                              "import socket; socket.create_connection(('127.0.0.1', 5432), "
                              "timeout=5)"], capture_output=True, text=True, timeout=60)
        assert res.returncode != 0, "a port that is not relayed must not be reachable"
    finally:
        host.remove()
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert host.name not in listed


def _amqp(address: str) -> None:
    import kombu

    with kombu.Connection(f"amqp://guest:guest@{address}//", connect_timeout=5) as conn:
        conn.ensure_connection(max_retries=1)


@pytest.mark.faults_long
def test_private_rabbitmq_restarts_on_its_own_port(run_dir):
    rabbit = fh.PrivateRabbit(run_dir)
    try:
        assert rabbit.port != fh.BROKER[1]
        _amqp(rabbit.address)
        rabbit.crash()
        with pytest.raises(OSError):
            _greeting(rabbit.address)
        rabbit.start()
        _amqp(rabbit.address)
    finally:
        rabbit.stop()
    assert not rabbit.dir.exists()


@pytest.mark.faults_long
def test_cluster_life_without_faults_leaves_nothing(fleet, api, template, cloud):
    """The baseline every case departs from: create, then delete; one stack, trustee, trust
    and set of bundles while it lives, nothing of it in Keystone, Heat or Barbican after."""
    uuid_ = api.create_cluster(fh.new_name("base"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster, within=0)
    fh.delete_and_check(api, cloud, cluster, footprint)
