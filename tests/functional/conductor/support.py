"""Helpers of the conductor functional tests: stand-in process, config, clusters, waiting."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

from cryptography.fernet import Fernet
from oslo_config import cfg

from magnum_common import states
from magnum_common.context import RequestContext
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters

HERE = pathlib.Path(__file__).resolve().parent
CONF = cfg.CONF
ENCRYPTION_KEY = Fernet.generate_key().decode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Standin:
    """The Keystone + Heat stand-in process."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([sys.executable, str(HERE / "openstack_standin.py"),
                                      str(self.port)], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def _post(self, path: str, body: dict) -> dict:
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(),
                                         {"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)

    def control(self, **values: Any) -> dict:
        return self._post("/control", values)

    def reset(self) -> None:
        self._post("/control/reset", {})

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "/control", timeout=10) as answer:
            return json.load(answer)

    def stacks_named(self, prefix: str) -> list[dict]:
        return [s for s in self.state()["stacks"] if s["stack_name"].startswith(prefix)]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def options(standin_url: str, topic: str, lease_seconds: int = 4) -> dict[str, dict[str, Any]]:
    """Every option a conductor needs to run against the stand-in, by group."""
    return {
        "conductor": {"topic": topic, "lease_seconds": lease_seconds, "lease_wait": 2,
                      "reconcile_interval": 1, "pending_grace": 3, "sync_interval": 1,
                      "report_interval": 1, "heat_attempts": 3, "heat_backoff": 0.2,
                      "workers": 1},
        "keystone_auth": {"auth_type": "password", "auth_url": f"{standin_url}/v3",
                          "username": "magnum", "password": "secret",
                          "project_name": "service", "user_domain_id": "default",
                          "project_domain_id": "default"},
        "trust": {"trustee_domain_id": "magnum", "trustee_domain_admin_name": "tda",
                  "trustee_domain_admin_password": "secret"},
        "crypto": {"encryption_key": ENCRYPTION_KEY},
        "certificates": {"cert_manager_type": "x509keypair"},
        "heat_client": {"timeout": 3},
        "kubernetes": {"health_polling_interval": 1},
        "DEFAULT": {"service_down_time": 6},
    }


def apply_options(values: dict[str, dict[str, Any]]) -> None:
    from keystoneauth1 import loading as ks_loading
    from oslo_messaging import opts as msg_opts

    from drivers.heat import conf as heat_conf  # noqa: F401 - [conductor] heat_attempts...
    from magnum_common.db import services  # noqa: F401 - registers service_down_time
    from magnum_conductor import conf  # noqa: F401 - registers every conductor option
    from magnum_conductor.identity import keystone

    CONF.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    # oslo.messaging registers [DEFAULT] transport_url only when it builds a transport; a test
    # that points the RPC client at another broker before that needs the option now.
    for group, opts in msg_opts.list_opts():
        if group is None:
            CONF.register_opts(opts)
    keystone.reset_cache()
    for group, group_values in values.items():
        for name, value in group_values.items():
            CONF.set_override(name, value, None if group == "DEFAULT" else group)


def write_config(path: pathlib.Path, db_url: str, values: dict[str, dict[str, Any]],
                 host: str,
                 transport_url: str = "rabbit://guest:guest@127.0.0.1:5672/") -> pathlib.Path:
    lines = ["[DEFAULT]", f"host = {host}", f"transport_url = {transport_url}", "debug = true"]
    lines += [f"{k} = {v}" for k, v in values.get("DEFAULT", {}).items()]
    lines += ["[database]", f"connection = {db_url}"]
    for group, opts in values.items():
        if group == "DEFAULT":
            continue
        lines.append(f"[{group}]")
        lines += [f"{k} = {v}" for k, v in opts.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def requester(project: str = "demo-project", user: str = "demo-user") -> RequestContext:
    """A requester whose token the stand-in accepts (``user-<id>-...``)."""
    return RequestContext(auth_token=f"user-{user}-{uuid.uuid4().hex[:6]}", user_id=user,
                          project_id=project, roles=["member"],
                          auth_url=CONF.keystone_auth.auth_url)


def make_template(project: str = "demo-project", labels: dict | None = None) -> Any:
    return cluster_templates.create(None, {
        "name": f"tpl-{uuid.uuid4().hex[:6]}", "project_id": project, "coe": "kubernetes",
        "server_type": "vm", "cluster_distro": "standin-os", "image_id": "img",
        "flavor_id": "m1.small", "master_flavor_id": "m1.small", "labels": labels or {},
        "external_network_id": "public", "network_driver": "flannel"})


def record_cluster(context: RequestContext, template: Any, name: str | None = None,
                   node_count: int = 1, master_count: int = 1) -> Any:
    """What the API does on POST /v1/clusters: rows + recorded create (no cast)."""
    name = name or f"c{uuid.uuid4().hex[:8]}"
    values = {"name": name, "project_id": context.project_id, "user_id": context.user_id,
              "cluster_template_id": template.uuid, "status": states.CREATE_IN_PROGRESS,
              "status_reason": "Create accepted.", "create_timeout": 60, "labels": {},
              "keypair": None, "floating_ip_enabled": True, "master_lb_enabled": False}
    common = {"project_id": context.project_id, "labels": {}, "image_id": "img",
              "flavor_id": "m1.small", "is_default": True,
              "status": states.CREATE_IN_PROGRESS}
    ngs = [dict(common, name="default-master", role="master", node_count=master_count),
           dict(common, name="default-worker", role="worker", node_count=node_count)]
    return clusters.create_with_nodegroups(context, values, ngs,
                                           context.record())


def wait_for(predicate: Callable[[], Any], timeout: float = 30, interval: float = 0.2,
             what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as exc:  # rows may vanish in between
            last = exc
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def cluster_status(uuid_: str) -> str | None:
    try:
        return clusters.get_by_uuid(None, uuid_).status
    except Exception:
        return "GONE"


class ConductorProcess:
    """A real ``magnum-conductor`` process (stand-in driver registered) from a config file."""

    def __init__(self, config: pathlib.Path, log: pathlib.Path,
                 prefix: list[str] | None = None) -> None:
        """``prefix``: a command the conductor runs through (``faketime -f +60s``)."""
        self.log = log
        env = dict(os.environ, PYTHONPATH=str(HERE.parents[2]))
        self._log_file = open(log, "w")
        self.proc = subprocess.Popen(
            [*(prefix or []), sys.executable, str(HERE / "run_conductor.py"),
             "--config-file", str(config)],
            stdout=self._log_file, stderr=subprocess.STDOUT, env=env, start_new_session=True)

    def kill(self) -> None:
        """kill -9 of the whole process group (cotyledon master and its worker)."""
        try:
            os.killpg(self.proc.pid, 9)
        except ProcessLookupError:
            pass
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(15)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                self.kill()
        self._log_file.close()


class BrokerProxy:
    """tcp_proxy.py as a process: stop() is a broker outage, start() its recovery."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen | None = None
        self.start()

    @property
    def transport_url(self) -> str:
        return f"rabbit://guest:guest@127.0.0.1:{self.port}/"

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, str(HERE / "tcp_proxy.py"),
                                      str(self.port)], stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline().strip() == "ready"

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


class Fleet:
    """Conductor processes of one test, addressed by host name."""

    def __init__(self, tmp_path, db_url, values, transport_url=None) -> None:
        self.tmp_path = tmp_path
        self.db_url = db_url
        self.values = values
        self.transport_url = transport_url
        self.procs: dict[str, ConductorProcess] = {}

    def start(self, host: str, prefix: list[str] | None = None) -> ConductorProcess:
        kwargs = {"transport_url": self.transport_url} if self.transport_url else {}
        config = write_config(self.tmp_path / f"{host}.conf", self.db_url,
                              self.values, host, **kwargs)
        proc = ConductorProcess(config, self.tmp_path / f"{host}.log", prefix)
        self.procs[host] = proc
        return proc

    def holder(self, cluster_uuid: str) -> str | None:
        owner = clusters.get_by_uuid(None, cluster_uuid).lock_owner
        return owner.split(":", 1)[0] if owner else None

    def stop(self) -> None:
        for proc in self.procs.values():
            proc.stop()
