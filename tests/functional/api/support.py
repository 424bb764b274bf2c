"""Stand-ins at process boundaries for the API tests.

* ``StubCloud``: a local HTTP service answering the few Glance / Nova / Neutron / Keystone
  requests the API makes (those services cannot run in every test environment).
* ``RpcRecorder``: a real oslo.messaging RPC server on RabbitMQ that records what the API
  sent to "the conductor", answers the synchronous calls with canned PEMs and, like a
  conductor that finished, clears the operation recorded on the cluster row.
* ``FakeDriver``: a driver plugin serving (vm, fedora-coreos, kubernetes).
"""

from __future__ import annotations

import json
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import oslo_messaging as messaging
from oslo_config import cfg

from magnum_common import exception, rpc, states
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations
from magnum_common.drivers import base as driver_base

IMAGE_ID = "6b2a0e9c-6f5e-4b53-9a1e-9a7f6a1c0001"
NOOS_IMAGE_ID = "6b2a0e9c-6f5e-4b53-9a1e-9a7f6a1c0002"
EXT_NET_ID = "0f1b6e2a-3c4d-4e5f-8a9b-0c1d2e3f4a01"
CA_PEM = "-----BEGIN CERTIFICATE-----\nCAFAKE\n-----END CERTIFICATE-----"
SIGNED_PEM = "-----BEGIN CERTIFICATE-----\nSIGNEDFAKE\n-----END CERTIFICATE-----"


class FakeDriver(driver_base.Driver):
    name = "fake_k8s"

    @property
    def provides(self):
        return [driver_base.Provides("vm", "fedora-coreos", "kubernetes")]

    def validate_labels(self, labels):
        if labels.get("container_runtime") not in (None, "containerd"):
            raise exception.InvalidParameterValue(err="container_runtime must be containerd")

    def trust_features(self, labels, template):
        merged = {**(template.labels or {}), **(labels or {})}
        return ["cloud_provider"] if merged.get("cloud_provider_enabled") == "true" else []

    def _never(self, *args, **kwargs):
        raise NotImplementedError

    create_cluster = resize_cluster = upgrade_cluster = delete_cluster = _never
    rotate_ca_certificate = rotate_credential = _never
    create_nodegroup = update_nodegroup = delete_nodegroup = _never
    stack_ids = stack_states = read_outputs = find_stacks = _never


class StubCloud:
    """Images, flavors, keypairs, networks, subnets and projects served over HTTP."""

    def __init__(self) -> None:
        self.images = [
            {"id": IMAGE_ID, "name": "fedora-coreos-40", "os_distro": "fedora-coreos"},
            {"id": NOOS_IMAGE_ID, "name": "plain", "status": "active"},
        ]
        self.flavors = [{"id": "1", "name": "m1.small", "disk": 10},
                        {"id": "2", "name": "m1.medium", "disk": 20},
                        {"id": "0", "name": "m1.nodisk", "disk": 0}]
        self.keypairs = {"kp"}
        self.networks = [
            {"id": EXT_NET_ID, "name": "public", "router:external": True},
            {"id": str(uuid.uuid4()), "name": "private", "router:external": False},
        ]
        self.subnets = [{"id": str(uuid.uuid4()), "name": "private-subnet"}]
        self.projects = set()
        self.requests: list[str] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                parsed = urllib.parse.urlparse(self.path)
                query = dict(urllib.parse.parse_qsl(parsed.query))
                stub.requests.append(self.path)
                status, body = stub.answer(parsed.path, query)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, path: str, query: dict) -> tuple[int, dict]:
        parts = path.strip("/").split("/")
        service, rest = parts[0], parts[1:]
        if service == "image" and rest[:2] == ["v2", "images"]:
            if len(rest) == 3:
                found = [i for i in self.images if i["id"] == rest[2]]
                return (200, found[0]) if found else (404, {})
            return 200, {"images": [i for i in self.images if i["name"] == query.get("name")]}
        if service == "compute" and rest[:1] == ["flavors"]:
            if rest[1] == "detail":
                return 200, {"flavors": self.flavors}
            found = [f for f in self.flavors if f["id"] == rest[1]]
            return (200, {"flavor": found[0]}) if found else (404, {})
        if service == "compute" and rest[:1] == ["os-keypairs"]:
            return (200, {"keypair": {"name": rest[1]}}) if rest[1] in self.keypairs \
                else (404, {})
        if service == "network" and rest[:1] == ["v2.0"]:
            items = self.networks if rest[1] == "networks" else self.subnets
            for key, value in query.items():
                if key == "router:external":
                    items = [i for i in items if i.get("router:external")]
                else:
                    items = [i for i in items if i.get(key) == value]
            return 200, {rest[1]: items}
        if service == "identity" and rest[:2] == ["v3", "projects"]:
            return (200, {"project": {"id": rest[2]}}) if rest[2] in self.projects \
                else (404, {})
        return 404, {}

    def overrides(self) -> dict[str, str]:
        return {"image_endpoint_override": f"{self.url}/image",
                "compute_endpoint_override": f"{self.url}/compute",
                "network_endpoint_override": f"{self.url}/network",
                "identity_endpoint_override": f"{self.url}/identity"}


class _Endpoint:
    def __init__(self, recorder: RpcRecorder) -> None:
        self.recorder = recorder

    def _record(self, ctxt, method: str, **kwargs):
        return self.recorder.record(ctxt, method, kwargs)

    def cluster_create(self, ctxt, **kw):
        return self._record(ctxt, "cluster_create", **kw)

    def cluster_update(self, ctxt, **kw):
        return self._record(ctxt, "cluster_update", **kw)

    def cluster_resize(self, ctxt, **kw):
        return self._record(ctxt, "cluster_resize", **kw)

    def cluster_delete(self, ctxt, **kw):
        return self._record(ctxt, "cluster_delete", **kw)

    def cluster_upgrade(self, ctxt, **kw):
        return self._record(ctxt, "cluster_upgrade", **kw)

    def nodegroup_create(self, ctxt, **kw):
        return self._record(ctxt, "nodegroup_create", **kw)

    def nodegroup_update(self, ctxt, **kw):
        return self._record(ctxt, "nodegroup_update", **kw)

    def nodegroup_delete(self, ctxt, **kw):
        return self._record(ctxt, "nodegroup_delete", **kw)

    def rotate_ca_certificate(self, ctxt, **kw):
        return self._record(ctxt, "rotate_ca_certificate", **kw)

    def credential_rotate(self, ctxt, **kw):
        return self._record(ctxt, "credential_rotate", **kw)

    def sign_certificate(self, ctxt, **kw):
        self._record(ctxt, "sign_certificate", **kw)
        return SIGNED_PEM

    def get_ca_certificate(self, ctxt, **kw):
        self._record(ctxt, "get_ca_certificate", **kw)
        return CA_PEM


class RpcRecorder:
    """An RPC server on ``topic`` recording every message (the conductor's place)."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.calls: list[dict] = []
        self.fail: dict[str, exception.MagnumException] = {}
        #: seconds to wait before answering a method (a conductor slower than the caller)
        self.delay: dict[str, float] = {}
        self.clear_operations = True
        self._cond = threading.Condition()
        # A transport of its own: other test files of this worker clean the shared one up.
        self.transport = messaging.get_rpc_transport(cfg.CONF,
                                                     allowed_remote_exmods=rpc.ALLOWED_EXMODS)
        self.server = rpc.get_server(topic, "recorder", [_Endpoint(self)], self.transport)
        self.server.start()

    def record(self, ctxt, method: str, kwargs: dict):
        entry = {"method": method, "kwargs": kwargs, "context": ctxt.to_dict(),
                 "operation": None, "operation_args": None}
        uuid_ = kwargs.get("cluster_uuid")
        if uuid_:
            row = clusters.get_by_uuid(None, uuid_)
            entry["operation"], entry["operation_args"] = row.operation, row.operation_args
            if self.clear_operations and row.operation:
                clusters.clear_operation(uuid_, row.operation)  # done, as a conductor would
                if row.operation_args.get("operation_id"):
                    operations.finish(row.operation_args["operation_id"],
                                      states.OPERATION_SUCCEEDED)
        with self._cond:
            self.calls.append(entry)
            self._cond.notify_all()
        time.sleep(self.delay.pop(method, 0.0))
        if method in self.fail:
            raise self.fail.pop(method)
        return None

    def wait_for(self, method: str, count: int = 1, timeout: float = 10.0) -> list[dict]:
        with self._cond:
            self._cond.wait_for(
                lambda: len([c for c in self.calls if c["method"] == method]) >= count,
                timeout=timeout)
            return [c for c in self.calls if c["method"] == method]

    def reset(self) -> None:
        with self._cond:
            self.calls.clear()
        self.fail.clear()
        self.delay.clear()
        self.clear_operations = True

    def stop(self) -> None:
        self.server.stop()
        self.server.wait()
        self.transport.cleanup()


def unreachable_transport() -> messaging.Transport:
    return messaging.get_rpc_transport(
        cfg.CONF, url="rabbit://guest:guest@127.0.0.1:1/",
        allowed_remote_exmods=rpc.ALLOWED_EXMODS)
