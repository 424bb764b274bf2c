"""A real ``magnum-api`` process (noauth, one worker, SQLite file) with the RPC recorder
and the stub cloud, for driving python-magnumclient and ``openstack coe``."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import time
import uuid

import pytest
from oslo_config import cfg

from magnum_common import crypto, rpc
from magnum_common.db import api as db_api
from magnum_common.db import migration
from tests.functional.api import support
from tests.functional.api.conftest import TRANSPORT_URL

CONF = cfg.CONF
BIN = os.path.dirname(sys.executable)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _configure(db_url: str, topic: str) -> None:
    CONF.set_override("connection", db_url, "database")
    CONF.set_override("transport_url", TRANSPORT_URL)
    CONF.set_override("topic", topic, "conductor")
    db_api.reset_engine()


@pytest.fixture(scope="session")
def compat_env(tmp_path_factory):
    import oslo_messaging

    CONF.register_opts(oslo_messaging.transport._transport_opts)
    workdir = tmp_path_factory.mktemp("compat")
    db_url = f"sqlite:///{workdir / 'magnum.sqlite'}"
    topic = f"magnum-compat-{uuid.uuid4().hex[:12]}"
    _configure(db_url, topic)
    migration.upgrade()
    cloud = support.StubCloud()
    cloud.projects.add("noauth-project")
    recorder = support.RpcRecorder(topic)
    port = _free_port()
    overrides = "\n".join(f"{k} = {v}" for k, v in cloud.overrides().items())
    conf = workdir / "magnum.conf"
    conf.write_text(f"""[DEFAULT]
auth_strategy = noauth
transport_url = {TRANSPORT_URL}
[crypto]
encryption_key = {crypto.generate_key()}
[noauth]
# python-magnumclient with --os-auth-type none sends a token only: name who it is
user_id = noauth-user
project_id = noauth-project
roles = admin,member,reader
[conductor]
topic = {topic}
[database]
connection = {db_url}
[api]
host = 127.0.0.1
port = {port}
workers = 1
{overrides}
""")
    log = open(workdir / "api.log", "w")
    proc = subprocess.Popen([os.path.join(BIN, "magnum-api"), "--config-file", str(conf)],
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/v1/")
            if conn.getresponse().status == 200:
                break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError((workdir / "api.log").read_text()) from None
            time.sleep(0.2)
    env = {"db_url": db_url, "topic": topic, "url": url, "cloud": cloud,
           "recorder": recorder, "workdir": workdir,
           "configure": lambda: _configure(db_url, topic)}
    yield env
    proc.terminate()
    proc.wait(timeout=30)
    log.close()
    recorder.stop()
    rpc.cleanup()
    cloud.stop()


@pytest.fixture(autouse=True)
def _compat_config(compat_env):
    """The shared conftest resets CONF after every test; the recorder needs it."""
    compat_env["configure"]()
    yield
