"""Node simulator: plays the last bootstrap step of every "booting" server (stdlib only).

No VM boots on the local cloud, so nothing would ever signal Heat. This daemon, logged in as
the cloud admin, polls Heat every few seconds (stacks of all projects, nested stacks included)
and, for each stack that is CREATE/UPDATE_IN_PROGRESS:

* every ``OS::Heat::WaitCondition`` that is IN_PROGRESS: finds its handle in the same stack
  (the WaitCondition's ``handle`` property in the stack template, else the
  ``OS::Heat::WaitConditionHandle`` it depends on), reads the handle's ``endpoint`` and
  ``token`` attributes and POSTs, as the booted node would with curl,
  ``{"status": "SUCCESS", "reason": "bootstrap complete (simulated)", "data": "ok",
  "id": "<server name>"}``; ids already held by the handle are not reused, so a ``count``
  above 1 (a number, or an expression such as ``generation + 1``) is met by further ids
  ``<server name>-2``, ``-3``...;
* every ``OS::Heat::SoftwareDeployment`` / ``StructuredDeployment`` that is IN_PROGRESS: signals
  it through the Heat API (``resources.signal``) with ``deploy_status_code`` 0.

A stack's conditions/deployments are only signalled when every ``OS::Nova::Server`` in that
same stack is complete: a server that failed (the localcloud failure switch) or is still
building is never answered for. Signals still waiting after 10 s are sent again (a signal sent
the instant a resource entered IN_PROGRESS was seen to be lost now and then).

Before it signals, the simulator *boots* the stack's server as a Magnum node would: it reads
the server's user data (the cloud's store on the lite tier, Nova as admin with microversion
2.3 on the full tier), takes the node's settings from ``/etc/magnum/bootstrap.env`` and
``runtime.env`` (:mod:`nodeboot`), and for a master gets its API certificate from Magnum with
the trustee's trust; the cluster's API then answers on the master's addresses
(:mod:`kubeapi`). A certificate that cannot be had yet (Magnum not answering) is retried every
30 s; the node still signals. Nodes are forgotten when their stack is gone (listeners closed),
and reported NotReady while stopped (``localcloud node stop``; on the full tier also a Nova
server that is not ACTIVE, e.g. after ``openstack server stop``). The booted nodes are kept in
``run/nodesim-nodes.json``, the stopped ones in ``run/nodesim-stopped.json``.
"""

import argparse
import base64
import hashlib
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from localcloud.helpers import etcdsim, kubeapi, nodeboot

SERVER_TYPES = ("OS::Nova::Server",)
WAIT_TYPES = ("OS::Heat::WaitCondition",)
HANDLE_TYPES = ("OS::Heat::WaitConditionHandle",)
DEPLOY_TYPES = ("OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment")
SERVER_DONE = ("CREATE_COMPLETE", "UPDATE_COMPLETE", "CHECK_COMPLETE", "RESUME_COMPLETE",
               "ADOPT_COMPLETE", "SNAPSHOT_COMPLETE")
WAITING = ("CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS")
RESIGNAL_AFTER = 10.0
CERT_RETRY = 30.0
GC_EVERY = 10.0
HANDOVER_EVERY = 10.0
TRUSTEE_TOKEN_FOR = 600.0
#: Settings never written to nodesim-nodes.json (the node's credentials).
SECRET_KEYS = ("TRUSTEE_PASSWORD", "NODE_TOKEN", "KUBE_SA_PRIVATE_KEY", "CA_PRIVATE_KEY",
               "WAIT_TOKEN", "ETCD_RESTORE_KEY")


def log(msg):
    print("%s %s" % (time.strftime("%F %T"), msg), flush=True)


class HTTPError(Exception):
    def __init__(self, code, body):
        super().__init__("HTTP %s: %s" % (code, body[:300]))
        self.code = code


def call(method, url, token, body=None, timeout=30, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "X-Auth-Token": token, "Accept": "application/json",
        "Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        raise HTTPError(e.code, e.read().decode(errors="replace")) from None
    return json.loads(text) if text.strip().startswith(("{", "[")) else text


def _write_private(path, data):
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


class Simulator:
    def __init__(self, auth_url, username, password, project, interval, heartbeat,
                 state_dir=None, servers_dir=None):
        self.auth_url = auth_url.rstrip("/")
        self.username, self.password, self.project = username, password, project
        self.interval = interval
        self.heartbeat = heartbeat
        self.state_dir = state_dir
        self.servers_dir = servers_dir
        self.token = None
        self.expires = 0
        self.heat = None
        self.nova = None
        self.templates = {}  # stack id -> template
        self.signalled = {}  # (stack id, resource name) -> last signal time
        self.server_names = {}  # (stack id, resource name) -> server name
        self.api = kubeapi.Registry()
        self.booted = {}  # server id -> {"stack", "digest", "node", "tls"}
        self.pending = {}  # server id -> (stack id, node, next certificate attempt)
        self.server_status = {}  # Nova server id -> status (full tier)
        self.last_gc = 0.0
        self.handover_at = {}  # server id -> last run of its etcd handover timer
        self.trustee_tokens = {}  # server id -> (token, time): the timer's cached login

    # -------------------------------------------------------------- auth
    def login(self):
        body = {"auth": {
            "identity": {"methods": ["password"], "password": {"user": {
                "name": self.username, "domain": {"name": "Default"},
                "password": self.password}}},
            "scope": {"project": {"name": self.project, "domain": {"name": "Default"}}}}}
        req = urllib.request.Request(self.auth_url + "/auth/tokens", method="POST",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            self.token = resp.headers["X-Subject-Token"]
            tok = json.loads(resp.read())["token"]
        self.expires = time.time() + 30 * 60
        project_id = tok["project"]["id"]
        for svc in tok.get("catalog", []):
            for ep in svc["endpoints"]:
                if ep["interface"] != "public":
                    continue
                found = ep["url"].replace("%(tenant_id)s", project_id).replace(
                    "$(tenant_id)s", project_id).rstrip("/")
                if svc["type"] == "orchestration":
                    self.heat = found
                elif svc["type"] == "compute":
                    self.nova = found
        if not self.heat:
            raise RuntimeError("no orchestration endpoint in the catalog")

    def heat_call(self, method, path, body=None):
        return self.admin_call(method, lambda: self.heat + path, body)

    def nova_call(self, path, microversion="2.3"):
        return self.admin_call("GET", lambda: self.nova + path, None,
                               {"OpenStack-API-Version": "compute " + microversion})

    def admin_call(self, method, url, body=None, headers=None):
        if not self.token or time.time() > self.expires:
            self.login()
        try:
            return call(method, url(), self.token, body, headers=headers)
        except HTTPError as e:
            if e.code != 401:
                raise
            self.login()
            return call(method, url(), self.token, body, headers=headers)

    # -------------------------------------------------------------- one poll
    def stacks_in_progress(self):
        q = urllib.parse.urlencode({"global_tenant": "True", "show_nested": "True",
                                    "status": "IN_PROGRESS", "limit": 1000})
        stacks = self.heat_call("GET", "/stacks?" + q)["stacks"]
        return [s for s in stacks if s.get("stack_status") in WAITING]

    def template(self, path, stack_id):
        if stack_id not in self.templates:
            try:
                self.templates[stack_id] = self.heat_call("GET", path + "/template")
            except HTTPError:
                self.templates[stack_id] = {}
        return self.templates[stack_id]

    @staticmethod
    def may_wait(tmpl):
        """False only when the stack's template certainly holds no wait condition or
        deployment (saves one resource listing per nested stack and poll)."""
        resources = (tmpl or {}).get("resources") or (tmpl or {}).get("Resources")
        if not resources:
            return not tmpl  # template unreadable: look at the resources instead
        for res in resources.values():
            rtype = str((res or {}).get("type") or (res or {}).get("Type") or "")
            if rtype in WAIT_TYPES + DEPLOY_TYPES:
                return True
            if not rtype.startswith(("OS::", "AWS::", "LocalCloud::")):
                return True  # a nested template or an environment alias: could be anything
        return False

    def resource_props(self, path, stack_id, name):
        tmpl = self.template(path, stack_id) or {}
        res = (tmpl.get("resources") or tmpl.get("Resources") or {}).get(name) or {}
        return res.get("properties") or res.get("Properties") or {}

    def due(self, key):
        last = self.signalled.get(key)
        return last is None or time.time() - last >= RESIGNAL_AFTER

    def poll(self):
        live = set()
        for stack in self.stacks_in_progress():
            sid = stack["id"]
            live.add(sid)
            path = "/stacks/%s/%s" % (stack["stack_name"], sid)
            if not self.may_wait(self.template(path, sid)):
                continue  # e.g. the facade stacks of the lite tier: nothing to signal there
            try:
                resources = self.heat_call("GET", path + "/resources")["resources"]
            except HTTPError as e:
                log("cannot list resources of %s: %s" % (stack["stack_name"], e))
                continue
            self.handle_stack(stack, path, resources)
        # forget finished stacks
        self.templates = {k: v for k, v in self.templates.items() if k in live}
        self.signalled = {k: v for k, v in self.signalled.items() if k[0] in live}

    def handle_stack(self, stack, path, resources):
        sid = stack["id"]
        by_name = {r["resource_name"]: r for r in resources}
        servers = [r for r in resources if r["resource_type"] in SERVER_TYPES]
        waiting = [r for r in resources if r["resource_status"] in WAITING
                   and r["resource_type"] in WAIT_TYPES + DEPLOY_TYPES]
        if not waiting:
            return
        not_ready = [s for s in servers if s["resource_status"] not in SERVER_DONE]
        if not_ready:
            return  # servers still booting, or failed: no node would answer
        for server in servers:
            self.boot(sid, server)
        failures = [(self.booted.get(s.get("physical_resource_id")) or {}).get("failure")
                    for s in servers]
        failure = next((f for f in failures if f), None)
        node_name = self.node_name(path, sid, servers)
        for r in waiting:
            key = (sid, r["resource_name"])
            if not self.due(key):
                continue
            if r["resource_type"] in DEPLOY_TYPES and not r.get("physical_resource_id"):
                continue  # handle_create still running: a signal now would be rejected
            try:
                if r["resource_type"] in WAIT_TYPES:
                    self.signal_wait_condition(stack, path, r, by_name, node_name, failure)
                else:
                    self.signal_deployment(stack, path, r)
                self.signalled[key] = time.time()
            except (HTTPError, OSError, ValueError, KeyError) as e:
                log("signal of %s/%s failed (will retry): %s"
                    % (stack["stack_name"], r["resource_name"], e))

    def node_name(self, path, sid, servers):
        if len(servers) != 1:
            return None
        key = (sid, servers[0]["resource_name"])
        if key not in self.server_names:
            try:
                res = self.heat_call("GET", "%s/resources/%s" % (
                    path, urllib.parse.quote(servers[0]["resource_name"])))["resource"]
                self.server_names[key] = (res.get("attributes") or {}).get("name")
            except HTTPError:
                return None
        return self.server_names[key]

    def find_handle(self, path, sid, wait, by_name):
        props = self.resource_props(path, sid, wait["resource_name"])
        handle = props.get("handle")
        if isinstance(handle, dict):
            handle = handle.get("get_resource") or handle.get("Ref")
        if isinstance(handle, str) and handle in by_name:
            return handle
        handles = [r for r in by_name.values() if r["resource_type"] in HANDLE_TYPES]
        linked = [h for h in handles if wait["resource_name"] in (h.get("required_by") or [])]
        if len(linked) == 1:
            return linked[0]["resource_name"]
        if len(handles) == 1:
            return handles[0]["resource_name"]
        return None

    def signal_wait_condition(self, stack, path, wait, by_name, node_name, failure=None):
        """``failure``: the node's bootstrap failed (magnum-bootstrap signals FAILURE)."""
        sid = stack["id"]
        handle = self.find_handle(path, sid, wait, by_name)
        if not handle:
            raise ValueError("no WaitConditionHandle found for %s" % wait["resource_name"])
        res = self.heat_call("GET", "%s/resources/%s" % (
            path, urllib.parse.quote(handle)))["resource"]
        attrs = res.get("attributes") or {}
        endpoint, token = attrs.get("endpoint"), attrs.get("token")
        if not (endpoint and token):
            endpoint, token = parse_curl_cli(attrs.get("curl_cli") or "")
        if not (endpoint and token):
            raise ValueError("handle %s has no endpoint/token yet" % handle)
        # Signals the handle already holds, by id: a lost signal is sent again with the same
        # id; a condition still waiting although it holds ours needs more (count > 1, e.g. a
        # count that grows with each update), so it gets a new id.
        try:
            have = self.heat_call("GET", "%s/resources/%s/metadata" % (
                path, urllib.parse.quote(handle))).get("metadata") or {}
        except HTTPError:
            have = {}
        have = set(have) if isinstance(have, dict) else set()
        count = self.resource_props(path, sid, wait["resource_name"]).get("count", 1)
        known = isinstance(count, int) and not isinstance(count, bool) and count > 0
        missing = max((count if known else len(have) + 1) - len(have), 1)
        base_id = node_name or wait["resource_name"]
        candidates = [base_id] + ["%s-%d" % (base_id, i) for i in range(2, len(have) + 100)]
        sent = [i for i in candidates if i not in have][:missing]
        for ident in sent:
            call("POST", endpoint, token, {
                "status": "FAILURE" if failure else "SUCCESS",
                "reason": failure or "bootstrap complete (simulated)",
                "data": "failed" if failure else "ok", "id": ident})
        log("signalled WaitCondition %s/%s via handle %s (ids %s; count %s, %d held before)"
            % (stack["stack_name"], wait["resource_name"], handle, ",".join(sent),
               count if known else "?", len(have)))

    def signal_deployment(self, stack, path, dep):
        self.heat_call("POST", "%s/resources/%s/signal" % (
            path, urllib.parse.quote(dep["resource_name"])), {
            "deploy_status_code": 0, "deploy_stdout": "bootstrap complete (simulated)",
            "deploy_stderr": ""})
        log("signalled %s %s/%s" % (dep["resource_type"], stack["stack_name"],
                                    dep["resource_name"]))

    # -------------------------------------------------------------- nodes
    def user_data(self, server_id):
        """The server's user data as its node would see it, or None."""
        if self.nova:
            server = self.nova_call("/servers/" + urllib.parse.quote(server_id))["server"]
            raw = server.get("OS-EXT-SRV-ATTR:user_data")
            return base64.b64decode(raw).decode(errors="replace") if raw else None
        if not self.servers_dir:
            return None
        try:
            with open(os.path.join(self.servers_dir, server_id + ".user_data")) as f:
                return f.read()
        except OSError:
            return None

    def boot(self, stack_id, server):
        """Boot a server as its node would, once per user data (a new generation boots
        again): register it and, for a master, bring its API up."""
        server_id = server.get("physical_resource_id")
        if not server_id:
            return
        try:
            user_data = self.user_data(server_id)
        except (HTTPError, OSError, ValueError, KeyError) as e:
            log("cannot read the user data of server %s: %s" % (server_id, e))
            return
        digest = hashlib.sha256((user_data or "").encode()).hexdigest()
        if (self.booted.get(server_id) or {}).get("digest") == digest:
            return
        node = nodeboot.read_node(server_id, user_data)
        before = (self.booted.get(server_id) or {}).get("node")
        self.booted[server_id] = {"stack": stack_id, "digest": digest, "node": node,
                                  "tls": None}
        self.pending.pop(server_id, None)
        if node is None:
            return  # not a Magnum node: nothing runs on it
        log("booted %s %s of cluster %s (%s)" % ("master" if node.master else "worker",
                                                 node.name, node.cluster, node.ip))
        if node.master:
            try:
                node.etcd = self.etcd_data(node, before)
            except etcdsim.RestoreError as e:
                log("etcd of %s not restored: %s" % (node.name, e))
                self.booted[server_id]["failure"] = (
                    "bootstrap step 40-etcd.sh failed on %s" % node.name)
                return  # the bootstrap stops there: no API
        if node.master and node.tls:
            self.pending[server_id] = (stack_id, node, 0.0)
            self.retry_certificates()
        else:
            self.api.add(server_id, node)
            self.save()

    def etcd_data(self, node, before):
        """A booting master's etcd keyspace: what its etcd volume holds, the snapshot its
        predecessor handed over (ETCD_RESTORE_IMAGE), else what a running peer replicates to
        a new member, else empty. New user data means a new server (the templates' servers
        replace on a user data change, the lite tier's facade keeps the id): a root disk's
        data never survives it."""
        volume = node.get("ETCD_VOLUME_ID")
        if volume:
            for other in [before] + [e.get("node") for e in self.booted.values()]:
                if other is not None and other is not node and other.master and other.get(
                        "ETCD_VOLUME_ID") == volume:
                    return other.etcd
        if node.get("ETCD_RESTORE_IMAGE"):
            keyspace = etcdsim.restore(node)
            log("etcd of %s restored from image %s (%d keys)" % (
                node.name, node.get("ETCD_RESTORE_IMAGE"), len(keyspace)))
            return keyspace
        for entry in self.booted.values():
            peer = entry.get("node")
            if (peer is not None and peer is not node and peer.master
                    and peer.cluster == node.cluster and not entry.get("failure")):
                return dict(peer.etcd)
        return {}

    def handovers(self):
        """magnum-etcd-handover.timer of every running lone master: answer a snapshot
        request Magnum left in Glance (a stopped node runs no timer)."""
        stopped = self.api.stopped_names()
        for server_id, entry in list(self.booted.items()):
            node = entry.get("node")
            if (node is None or entry.get("failure") or server_id in self.pending
                    or node.name in stopped or not etcdsim.lone_master(node)):
                continue
            if time.time() - self.handover_at.get(server_id, 0.0) < HANDOVER_EVERY:
                continue
            self.handover_at[server_id] = time.time()
            try:
                token, at = self.trustee_tokens.get(server_id, (None, 0.0))
                if time.time() - at > TRUSTEE_TOKEN_FOR:
                    token = nodeboot.trustee_token(node)
                    self.trustee_tokens[server_id] = (token, time.time())
                answered = etcdsim.answer_request(node, node.etcd, token)
            except (nodeboot.BootError, urllib.error.URLError, OSError, ValueError) as e:
                self.trustee_tokens.pop(server_id, None)
                log("etcd handover of %s failed (will retry): %s" % (node.name, e))
                continue
            if answered:
                log("etcd snapshot of %s handed over (image %s, %d keys)" % (
                    node.name, answered, len(node.etcd)))

    def retry_certificates(self):
        """Masters whose API certificate is still to be signed: try the due ones."""
        for server_id, (stack_id, node, due) in list(self.pending.items()):
            if time.time() < due:
                continue
            try:
                tls = nodeboot.api_certificate(node)
            except nodeboot.BootError as e:
                log("API certificate of %s not signed yet (retry in %ds): %s"
                    % (node.name, CERT_RETRY, e))
                self.pending[server_id] = (stack_id, node, time.time() + CERT_RETRY)
                continue
            del self.pending[server_id]
            self.booted[server_id]["tls"] = tls
            self.api.add(server_id, node, tls)
            log("API of %s serves %s on port %d" % (node.name, ", ".join(node.api_addresses()),
                                                    node.port))
            self.save()

    def collect(self):
        """Forget the nodes whose stack is gone; apply which nodes are stopped."""
        if time.time() - self.last_gc < GC_EVERY or not (self.booted or self.pending):
            self.apply_stopped()
            return
        self.last_gc = time.time()
        q = urllib.parse.urlencode({"global_tenant": "True", "show_nested": "True",
                                    "limit": 10000})
        live = {s["id"] for s in self.heat_call("GET", "/stacks?" + q)["stacks"]
                if not s.get("stack_status", "").startswith("DELETE")}
        if self.nova:
            self.server_status = {s["id"]: s.get("status") for s in self.nova_call(
                "/servers/detail?all_tenants=1&limit=1000")["servers"]}
        for server_id, entry in list(self.booted.items()):
            gone = entry["stack"] not in live or (self.nova and
                                                  server_id not in self.server_status)
            if gone:
                if entry["node"] is not None:
                    log("forgetting %s: its stack is gone" % entry["node"].name)
                del self.booted[server_id]
                self.handover_at.pop(server_id, None)
                self.trustee_tokens.pop(server_id, None)
                self.pending.pop(server_id, None)
                self.api.remove(server_id)
        self.apply_stopped()
        self.save()

    def apply_stopped(self):
        """Stopped: named in nodesim-stopped.json (name or server id), or a Nova server
        that is not ACTIVE."""
        names = set(self.read_stopped())
        for server_id, entry in self.booted.items():
            node = entry["node"]
            if node is not None and (server_id in names or (
                    self.server_status.get(server_id) not in (None, "ACTIVE"))):
                names.add(node.name)
        self.api.set_stopped(names)

    def read_stopped(self):
        if not self.state_dir:
            return []
        try:
            with open(os.path.join(self.state_dir, "nodesim-stopped.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return []

    def save(self):
        """The booted nodes, for `localcloud node list` and for a restart of this process."""
        if not self.state_dir:
            return
        nodes = []
        for server_id, entry in sorted(self.booted.items()):
            node = entry["node"]
            if node is None:
                continue
            nodes.append({"server_id": server_id, "stack": entry["stack"],
                          "digest": entry["digest"], "tls": entry["tls"],
                          "api": server_id not in self.pending,
                          "env": {k: v for k, v in node.env.items() if k not in SECRET_KEYS},
                          "etcd": node.etcd})
        _write_private(os.path.join(self.state_dir, "nodesim-nodes.json"), nodes)

    def load(self):
        """The nodes booted before a restart: they keep running (pending ones boot again)."""
        if not self.state_dir:
            return
        try:
            with open(os.path.join(self.state_dir, "nodesim-nodes.json")) as f:
                saved = json.load(f)
        except (OSError, ValueError):
            return
        for item in saved:
            if not item.get("api"):
                continue  # its certificate was pending: the next poll boots it again
            node = nodeboot.Node(item["server_id"], item["env"], item.get("etcd") or {})
            tls = tuple(item["tls"]) if item.get("tls") else None
            self.booted[item["server_id"]] = {"stack": item["stack"], "digest": item["digest"],
                                              "node": node, "tls": tls}
            self.api.add(item["server_id"], node, tls)
        log("resumed %d booted nodes" % len(self.booted))

    # -------------------------------------------------------------- main loop
    def run(self):
        log("node simulator polling Heat every %.1fs" % self.interval)
        self.load()
        while True:
            try:
                self.poll()
                self.retry_certificates()
                self.collect()
                self.handovers()
                if self.api.take_changed():
                    self.save()
            except Exception as e:  # keep running whatever Heat or Keystone says
                log("poll failed: %s: %s" % (type(e).__name__, e))
                self.token = None
            if self.heartbeat:
                with open(self.heartbeat, "w") as f:
                    f.write("%f\n" % time.time())
            time.sleep(self.interval)


def parse_curl_cli(cli):
    """endpoint and token out of a handle's curl_cli attribute."""
    endpoint = token = None
    parts = cli.split()
    for i, p in enumerate(parts):
        if p.startswith("http"):
            endpoint = p.strip("'\"")
        if p.strip("'\"").lower().startswith("x-auth-token:") and i < len(parts):
            rest = p.strip("'\"").split(":", 1)[1].strip()
            token = rest or (parts[i + 1].strip("'\"") if i + 1 < len(parts) else None)
    return endpoint, token


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--auth-url", required=True)
    ap.add_argument("--username", default="admin")
    ap.add_argument("--project", default="admin")
    ap.add_argument("--interval", type=float, default=3.0)
    ap.add_argument("--heartbeat")
    ap.add_argument("--state-dir", help="where nodesim-nodes.json / nodesim-stopped.json live")
    ap.add_argument("--servers-dir", help="the lite tier's store of server user data")
    args = ap.parse_args()
    password = os.environ.get("LOCALCLOUD_NODESIM_PASSWORD")
    if not password:
        sys.exit("LOCALCLOUD_NODESIM_PASSWORD is not set")
    Simulator(args.auth_url, args.username, password, args.project, args.interval,
              args.heartbeat, args.state_dir, args.servers_dir).run()


if __name__ == "__main__":
    main()
