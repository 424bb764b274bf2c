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
"""

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

SERVER_TYPES = ("OS::Nova::Server",)
WAIT_TYPES = ("OS::Heat::WaitCondition",)
HANDLE_TYPES = ("OS::Heat::WaitConditionHandle",)
DEPLOY_TYPES = ("OS::Heat::SoftwareDeployment", "OS::Heat::StructuredDeployment")
SERVER_DONE = ("CREATE_COMPLETE", "UPDATE_COMPLETE", "CHECK_COMPLETE", "RESUME_COMPLETE",
               "ADOPT_COMPLETE", "SNAPSHOT_COMPLETE")
WAITING = ("CREATE_IN_PROGRESS", "UPDATE_IN_PROGRESS")
RESIGNAL_AFTER = 10.0


def log(msg):
    print("%s %s" % (time.strftime("%F %T"), msg), flush=True)


class HTTPError(Exception):
    def __init__(self, code, body):
        super().__init__("HTTP %s: %s" % (code, body[:300]))
        self.code = code


def call(method, url, token, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "X-Auth-Token": token, "Accept": "application/json",
        "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        raise HTTPError(e.code, e.read().decode(errors="replace")) from None
    return json.loads(text) if text.strip().startswith(("{", "[")) else text


class Simulator:
    def __init__(self, auth_url, username, password, project, interval, heartbeat):
        self.auth_url = auth_url.rstrip("/")
        self.username, self.password, self.project = username, password, project
        self.interval = interval
        self.heartbeat = heartbeat
        self.token = None
        self.expires = 0
        self.heat = None
        self.templates = {}  # stack id -> template
        self.signalled = {}  # (stack id, resource name) -> last signal time
        self.server_names = {}  # (stack id, resource name) -> server name

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
            if svc["type"] == "orchestration":
                for ep in svc["endpoints"]:
                    if ep["interface"] == "public":
                        self.heat = ep["url"].replace("%(tenant_id)s", project_id).replace(
                            "$(tenant_id)s", project_id).rstrip("/")
        if not self.heat:
            raise RuntimeError("no orchestration endpoint in the catalog")

    def heat_call(self, method, path, body=None):
        if not self.token or time.time() > self.expires:
            self.login()
        try:
            return call(method, self.heat + path, self.token, body)
        except HTTPError as e:
            if e.code != 401:
                raise
            self.login()
            return call(method, self.heat + path, self.token, body)

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
        node_name = self.node_name(path, sid, servers)
        for r in waiting:
            key = (sid, r["resource_name"])
            if not self.due(key):
                continue
            if r["resource_type"] in DEPLOY_TYPES and not r.get("physical_resource_id"):
                continue  # handle_create still running: a signal now would be rejected
            try:
                if r["resource_type"] in WAIT_TYPES:
                    self.signal_wait_condition(stack, path, r, by_name, node_name)
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

    def signal_wait_condition(self, stack, path, wait, by_name, node_name):
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
                "status": "SUCCESS", "reason": "bootstrap complete (simulated)",
                "data": "ok", "id": ident})
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

    # -------------------------------------------------------------- main loop
    def run(self):
        log("node simulator polling Heat every %.1fs" % self.interval)
        while True:
            try:
                self.poll()
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
    args = ap.parse_args()
    password = os.environ.get("LOCALCLOUD_NODESIM_PASSWORD")
    if not password:
        sys.exit("LOCALCLOUD_NODESIM_PASSWORD is not set")
    Simulator(args.auth_url, args.username, password, args.project, args.interval,
              args.heartbeat).run()


if __name__ == "__main__":
    main()
