"""The simulated clusters' Kubernetes API: what the health monitor and kubectl talk to.

Each running master serves its own address on 6443 (TLS, its certificate signed by the cluster
CA through Magnum, client certificates signed by that CA required), or on 8080 in plain HTTP
when the cluster has TLS disabled; the cluster's load balancer and floating addresses are
served by whichever of its masters runs (a load balancer with no member left drops the
connection). Every address is in 127.0.0.0/8. Answers:

* ``/healthz``, ``/livez``, ``/readyz``: ``ok``;
* ``/version``: the cluster's Kubernetes version;
* ``/api/v1/nodes`` (and ``/api/v1/nodes/<name>``): every node of the cluster, ``Ready``
  unless that simulated node is stopped;
* ``/api/v1/namespaces/<ns>/configmaps/<name>``: GET, PUT (create or replace), DELETE, and
  POST to ``.../configmaps``: kept in the masters' etcd keyspace (``node.etcd``, key
  ``/registry/configmaps/<ns>/<name>``), written to every running master of the cluster as
  etcd replicates, read from the master that serves the request. So data written before a
  master's replacement can be read from its successor (:mod:`etcdsim`).

Standard library only (the certificates come from :mod:`nodeboot`).
"""

import json
import os
import re
import socket
import ssl
import tempfile
import threading
import time

READ_TIMEOUT = 10
MAX_BODY = 1 << 20
CONFIGMAPS = re.compile(r"^/api/v1/namespaces/([a-z0-9][-a-z0-9]{0,62})/configmaps"
                        r"(?:/([a-z0-9][-.a-z0-9]{0,252}))?$")


class Cluster:
    """The nodes of one cluster, as the API reports them."""

    def __init__(self, uuid):
        self.uuid = uuid
        self.nodes = {}  # key -> nodeboot.Node
        self.stopped = set()  # node names
        self.tls = {}  # master node key -> ssl.SSLContext
        self.changed = False  # an etcd write the simulator has not saved yet

    def write(self, key, value):
        """Set (None: delete) a key in every running master's etcd, as the raft log would."""
        for k in self.running_masters():
            etcd = self.nodes[k].etcd
            if value is None:
                etcd.pop(key, None)
            else:
                etcd[key] = value
        self.changed = True

    def running_masters(self):
        return [k for k, n in sorted(self.nodes.items())
                if n.master and n.name not in self.stopped and (k in self.tls or not n.tls)]

    def node_list(self):
        items = [node_object(n, n.name not in self.stopped)
                 for _, n in sorted(self.nodes.items(), key=lambda kv: kv[1].name)]
        return {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": items}


def node_object(node, ready):
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    addresses = [{"type": "InternalIP", "address": node.ip}, {"type": "Hostname",
                                                              "address": node.name}]
    if node.get("NODE_PUBLIC_IP"):
        addresses.append({"type": "ExternalIP", "address": node.get("NODE_PUBLIC_IP")})
    role = "control-plane" if node.master else "worker"
    return {
        "kind": "Node", "apiVersion": "v1",
        "metadata": {"name": node.name, "labels": {
            "kubernetes.io/hostname": node.name, "node-role.kubernetes.io/" + role: "",
            "magnum.openstack.org/nodegroup": node.get("NODEGROUP_NAME"),
            "magnum.openstack.org/role": node.get("NODEGROUP_ROLE")}},
        "spec": {},
        "status": {
            "conditions": [{
                "type": "Ready", "status": "True" if ready else "False",
                "reason": "KubeletReady" if ready else "NodeStatusUnknown",
                "message": "kubelet is posting ready status (simulated)" if ready
                else "Kubelet stopped posting node status (simulated node stopped)",
                "lastHeartbeatTime": now}],
            "addresses": addresses,
            "nodeInfo": {"kubeletVersion": node.get("KUBE_TAG"),
                         "osImage": node.get("OS_DISTRO")},
        },
    }


def version_object(node):
    tag = node.get("KUBE_TAG") or "v0.0.0"
    parts = tag.lstrip("v").split(".")
    return {"major": parts[0], "minor": parts[1] if len(parts) > 1 else "0",
            "gitVersion": tag if tag.startswith("v") else "v" + tag,
            "platform": "linux/amd64", "compiler": "simulated"}


def context_for(ca_pem, cert_pem, key_pem):
    """A server context presenting cert/key and requiring clients signed by the CA."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    with tempfile.TemporaryDirectory(prefix="nodesim-") as tmp:
        paths = {}
        for name, text in (("cert", cert_pem), ("key", key_pem)):
            paths[name] = os.path.join(tmp, name)
            fd = os.open(paths[name], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)
        ctx.load_cert_chain(paths["cert"], paths["key"])
    ctx.load_verify_locations(cadata=ca_pem)
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


class Listener:
    """One address:port; each connection goes to a master chosen when it arrives."""

    def __init__(self, registry, address, port):
        self.registry, self.address, self.port = registry, address, port
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((address, port))
        self.sock.listen(64)
        self.sock.settimeout(1.0)
        self.closed = False
        self.thread = threading.Thread(target=self._accept, daemon=True,
                                       name="api-%s:%d" % (address, port))
        self.thread.start()

    def close(self):
        """Stop listening now: shutdown wakes the accepting thread, so no connection is
        queued on a socket about to go (it would be reset instead of refused)."""
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn):
        conn.settimeout(READ_TIMEOUT)
        try:
            route = self.registry.route(self.address, self.port)
            if route is None:
                return  # no master behind this address runs: the connection just drops
            cluster, node, ctx = route
            if ctx is not None:
                conn = ctx.wrap_socket(conn, server_side=True)
            handle_http(conn, cluster, node)
        except (OSError, ssl.SSLError, ValueError):
            pass
        finally:
            try:
                conn.close()
            except OSError:
                pass


def _read_request(conn):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return None
        data += chunk
        if len(data) > 65536:
            raise ValueError("request head too large")
    raw_head, body = data.split(b"\r\n\r\n", 1)
    head = raw_head.decode("latin-1").split("\r\n")
    method, target, _ = head[0].split(" ", 2)
    length = 0
    for line in head[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length > MAX_BODY:
        raise ValueError("request body too large")
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return None
        body += chunk
    return method, target.split("?", 1)[0], body[:length]


def configmap(cluster, node, method, namespace, name, body):
    """A ConfigMap request against the masters' etcd (see the module's docstring)."""
    if method in ("POST", "PUT"):
        try:
            obj = json.loads(body or b"{}")
            name = name or obj["metadata"]["name"]
        except (ValueError, KeyError, TypeError):
            return 400, _status(400, "BadRequest", "a ConfigMap with metadata.name is needed")
        if method == "POST" and node.etcd.get("/registry/configmaps/%s/%s" % (namespace, name)):
            return 409, _status(409, "AlreadyExists",
                                'configmaps "%s" already exists' % name)
        obj = {"kind": "ConfigMap", "apiVersion": "v1", "data": obj.get("data") or {},
               "metadata": {"name": name, "namespace": namespace}}
        cluster.write("/registry/configmaps/%s/%s" % (namespace, name), obj)
        return (201 if method == "POST" else 200), json.dumps(obj).encode()
    if name is None:
        prefix = "/registry/configmaps/%s/" % namespace
        items = [v for k, v in sorted(node.etcd.items()) if k.startswith(prefix)]
        return 200, json.dumps({"kind": "ConfigMapList", "apiVersion": "v1",
                                "metadata": {}, "items": items}).encode()
    key = "/registry/configmaps/%s/%s" % (namespace, name)
    if key not in node.etcd:
        return 404, _status(404, "NotFound", 'configmaps "%s" not found' % name)
    obj = node.etcd[key]
    if method == "DELETE":
        cluster.write(key, None)
    return 200, json.dumps(obj).encode()


def respond(cluster, node, method, path, body=b""):
    """(status, content type, body) for one request."""
    match = CONFIGMAPS.match(path)
    if match and (method in ("GET", "HEAD", "POST") or (match.group(2) and method in (
            "PUT", "DELETE"))):
        code, payload = configmap(cluster, node, method, match.group(1), match.group(2), body)
        return code, "application/json", payload
    if method not in ("GET", "HEAD"):
        return 405, "application/json", _status(405, "MethodNotAllowed",
                                                "only ConfigMaps can be written")
    if path in ("/healthz", "/livez", "/readyz"):
        return 200, "text/plain; charset=utf-8", b"ok"
    if path == "/version":
        return 200, "application/json", json.dumps(version_object(node)).encode()
    if path == "/api/v1/nodes":
        return 200, "application/json", json.dumps(cluster.node_list()).encode()
    if path.startswith("/api/v1/nodes/"):
        name = path[len("/api/v1/nodes/"):]
        for item in cluster.node_list()["items"]:
            if item["metadata"]["name"] == name:
                return 200, "application/json", json.dumps(item).encode()
        return 404, "application/json", _status(404, "NotFound", 'nodes "%s" not found' % name)
    return 404, "application/json", _status(404, "NotFound", "the server could not find the "
                                            "requested resource (simulated API)")


def _status(code, reason, message):
    return json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                       "message": message, "reason": reason, "code": code}).encode()


REASONS = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found",
           405: "Method Not Allowed", 409: "Conflict"}


def handle_http(conn, cluster, node):
    while True:
        request = _read_request(conn)
        if request is None:
            return
        method, path, payload = request
        code, ctype, body = respond(cluster, node, method, path, payload)
        head = ("HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" % (
            code, REASONS[code], ctype, len(body))).encode()
        conn.sendall(head + (b"" if method == "HEAD" else body))


class Registry:
    """Every simulated cluster's nodes and the listeners their API addresses need."""

    def __init__(self):
        self.lock = threading.RLock()
        self.clusters = {}
        self.listeners = {}  # (address, port) -> Listener

    def cluster(self, uuid):
        with self.lock:
            return self.clusters.setdefault(uuid, Cluster(uuid))

    def add(self, key, node, tls=None):
        """Register a booted node; ``tls`` = (ca, cert, key) PEMs for a TLS master's API."""
        with self.lock:
            self.remove(key, sync=False)
            cluster = self.cluster(node.cluster)
            cluster.nodes[key] = node
            if tls:
                cluster.tls[key] = context_for(*tls)
            self.sync()

    def remove(self, key, sync=True):
        with self.lock:
            for uuid, cluster in list(self.clusters.items()):
                cluster.nodes.pop(key, None)
                cluster.tls.pop(key, None)
                if not cluster.nodes:
                    del self.clusters[uuid]
            if sync:
                self.sync()

    def set_stopped(self, names):
        with self.lock:
            for cluster in self.clusters.values():
                cluster.stopped = {n.name for n in cluster.nodes.values()} & set(names)
            self.sync()

    def take_changed(self):
        """Whether some cluster's etcd was written since the last call."""
        with self.lock:
            changed = [c for c in self.clusters.values() if c.changed]
            for c in changed:
                c.changed = False
            return bool(changed)

    def stopped_names(self):
        with self.lock:
            return set().union(*[c.stopped for c in self.clusters.values()])

    def route(self, address, port):
        """(cluster, master node, TLS context or None) serving address:port, or None."""
        with self.lock:
            for cluster in self.clusters.values():
                masters = cluster.running_masters()
                own = [k for k in masters if cluster.nodes[k].ip == address]
                for key in own or masters:
                    node = cluster.nodes[key]
                    if node.port == port and address in node.api_addresses():
                        return cluster, node, cluster.tls.get(key)
        return None

    def wanted(self):
        """The (address, port) pairs some running master serves."""
        wanted = set()
        for cluster in self.clusters.values():
            for key in cluster.running_masters():
                node = cluster.nodes[key]
                own = {node.ip}
                shared = set(node.api_addresses()) - own
                # a master's own address goes down with it; shared ones stay up while any
                # master of the cluster runs
                wanted |= {(a, node.port) for a in own | shared}
        return wanted

    def sync(self):
        """Open the listeners that are wanted and close the others."""
        with self.lock:
            wanted = self.wanted()
            for addr in list(self.listeners):
                if addr not in wanted:
                    self.listeners.pop(addr).close()
            for addr in wanted - set(self.listeners):
                try:
                    self.listeners[addr] = Listener(self, *addr)
                except OSError as e:
                    print("%s cannot listen on %s:%d: %s" % (
                        time.strftime("%F %T"), addr[0], addr[1], e), flush=True)

    def close(self):
        with self.lock:
            for listener in self.listeners.values():
                listener.close()
            self.listeners.clear()
