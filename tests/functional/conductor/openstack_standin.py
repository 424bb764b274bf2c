"""A small Keystone + Heat stand-in process for the conductor's fault tests.

It speaks the handful of REST calls the conductor, its trust module and the test driver
make: Keystone v3 tokens (password / token / trust methods, project / domain / trust scope,
with a catalog), users and trusts; Heat v1 stack create / list (id and name filters) / show
/ update / delete and resource list. Stacks move from ``*_IN_PROGRESS`` to ``*_COMPLETE``
after a configurable time. ``/control`` lets a test make the next requests fail with 5xx,
hang (timeout), hang after a change was made (``hang_after``: a Heat method, or ``POST
trust``), hang before making it (``hang_before``: a Heat method; the change lands late),
fail Keystone's next deletes (``keystone_fail_deletes``), fail stacks, or read
what was asked (request counts, every stack ever made).

Run: ``python openstack_standin.py PORT`` (prints ``ready`` once listening).
"""

from __future__ import annotations

import datetime
import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

LOCK = threading.RLock()
STATE: dict = {}


def reset() -> None:
    with LOCK:
        STATE.clear()
        STATE.update(
            users={}, trusts={}, tokens={}, stacks={}, requests={}, revoked_tokens=set(),
            control={"create_seconds": 2.0, "update_seconds": 2.0, "delete_seconds": 1.0,
                     "fail_5xx": 0, "fail_5xx_after": 0, "hang_seconds": 0.0,
                     "hang_count": 0,
                     "fail_stacks": {}, "health": {}, "hang_after": None,
                     "hang_before": None,
                     "unlisted": [], "keystone_fail_deletes": 0},
        )


reset()


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _iso(value: datetime.datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Stack:
    def __init__(self, tenant: str, name: str, params: dict, owner: str) -> None:
        self.id = str(uuid.uuid4())
        self.tenant = tenant
        self.name = name
        self.params = dict(params)
        self.owner = owner
        self.created = _now()
        self.updated: datetime.datetime | None = None
        self.deleted = False
        self._begin("CREATE")

    def _begin(self, action: str) -> None:
        control = STATE["control"]
        seconds = control[f"{action.lower()}_seconds"]
        self.action = action
        self.done_at = time.monotonic() + seconds
        fail = control["fail_stacks"].get(action)
        self.fail = bool(fail) and (fail == "*" or fail in self.name)

    @property
    def status(self) -> str:
        if time.monotonic() < self.done_at:
            return "IN_PROGRESS"
        if self.fail:
            return "FAILED"
        return "COMPLETE"

    @property
    def full_status(self) -> str:
        return f"{self.action}_{self.status}"

    @property
    def gone(self) -> bool:
        return self.action == "DELETE" and self.status == "COMPLETE"

    def reason(self) -> str:
        if self.status == "FAILED":
            return f"Resource {self.action} failed: Error: resources.kube_masters: boom"
        return f"Stack {self.action} {'started' if self.status == 'IN_PROGRESS' else 'completed'}"

    def body(self, outputs: bool = False) -> dict:
        data = {
            "id": self.id, "stack_name": self.name, "stack_status": self.full_status,
            "stack_status_reason": self.reason(), "creation_time": _iso(self.created),
            "updated_time": _iso(self.updated) if self.updated else None,
            "parameters": {k: str(v) for k, v in self.params.items()},
            "links": [{"href": f"/stacks/{self.name}/{self.id}", "rel": "self"}],
            "stack_owner": self.owner, "project": self.tenant,
        }
        if outputs:
            masters = int(self.params.get("number_of_masters", 1))
            minions = int(self.params.get("number_of_minions", 1))
            data["outputs"] = [
                {"output_key": "api_address", "output_value": "127.24.4.10"},
                {"output_key": "kube_masters",
                 "output_value": [f"127.24.4.{20 + i}" for i in range(masters)]},
                {"output_key": "kube_minions",
                 "output_value": [f"127.24.4.{100 + i}" for i in range(minions)]},
            ]
        return data


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        return

    # --- plumbing ----------------------------------------------------------------------
    def _send(self, code: int, body: object = None, headers: dict | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}") if length else {}

    def _count(self, key: str) -> None:
        with LOCK:
            STATE["requests"][key] = STATE["requests"].get(key, 0) + 1

    def _dispatch(self, method: str) -> None:
        url = urlparse(self.path)
        query = parse_qs(url.query)
        path = url.path.rstrip("/")
        try:
            if path.startswith("/control"):
                return self._control(method, path)
            if path.startswith("/heat/v1/"):
                return self._heat(method, path, query)
            if path.startswith("/v3") or path == "":
                return self._keystone(method, path, query)
            if path.startswith("/k8s/"):
                return self._k8s(path)
            self._send(404, {"error": "not found"})
        except BrokenPipeError:
            pass

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    # --- control -----------------------------------------------------------------------
    def _control(self, method: str, path: str) -> None:
        if method == "POST" and path == "/control/reset":
            reset()
            return self._send(200, {})
        if method == "POST" and path == "/control/seed":
            return self._send(200, self._seed(self._body()))
        if method == "POST":
            with LOCK:
                STATE["control"].update(self._body())
            return self._send(200, STATE["control"])
        with LOCK:
            stacks = [dict(s.body(), deleted=s.gone, tenant=s.tenant)
                      for s in STATE["stacks"].values()]
            return self._send(200, {"requests": STATE["requests"], "stacks": stacks,
                                    "users": list(STATE["users"].values()),
                                    "trusts": list(STATE["trusts"].values()),
                                    "control": {k: v for k, v in STATE["control"].items()}})

    def _seed(self, body: dict) -> dict:
        """Many in-progress stacks of one project plus a trustee with a trust (benchmarks)."""
        tenant = body["tenant"]
        user = {"id": uuid.uuid4().hex, "name": f"trustee-{tenant}", "domain_id": "magnum",
                "password": body.get("password", "secret"), "enabled": True}
        trust = {"id": uuid.uuid4().hex, "trustor_user_id": "owner", "project_id": tenant,
                 "trustee_user_id": user["id"], "impersonation": True, "roles": []}
        ids = []
        with LOCK:
            STATE["users"][user["id"]] = user
            STATE["trusts"][trust["id"]] = trust
            seconds = STATE["control"]["create_seconds"]
            STATE["control"]["create_seconds"] = body.get("seconds", 3600)
            for i in range(body["count"]):
                stack = Stack(tenant, f"seed-{tenant}-{i}", {}, "owner")
                STATE["stacks"][stack.id] = stack
                ids.append(stack.id)
            STATE["control"]["create_seconds"] = seconds
        return {"user_id": user["id"], "trust_id": trust["id"], "stack_ids": ids}

    def _k8s(self, path: str) -> None:
        cluster = path.split("/")[2]
        with LOCK:
            health = STATE["control"]["health"].get(cluster)
        if health is None:
            return self._send(503, {"error": "unreachable"})
        self._send(200, health)

    # --- keystone ----------------------------------------------------------------------
    def _catalog(self, project_id: str | None) -> list:
        base = f"http://{self.headers.get('Host')}"
        catalog = [{"type": "identity", "name": "keystone", "id": "k",
                    "endpoints": [{"interface": i, "region": "RegionOne",
                                   "region_id": "RegionOne", "url": f"{base}/v3", "id": f"k{i}"}
                                  for i in ("public", "internal", "admin")]}]
        if project_id:
            catalog.append({"type": "orchestration", "name": "heat", "id": "h",
                            "endpoints": [{"interface": i, "region": "RegionOne",
                                           "region_id": "RegionOne", "id": f"h{i}",
                                           "url": f"{base}/heat/v1/{project_id}"}
                                          for i in ("public", "internal", "admin")]})
        return catalog

    def _issue(self, user_id: str, project_id: str | None, domain_id: str | None,
               trust: dict | None, methods: list) -> None:
        token = uuid.uuid4().hex
        with LOCK:
            STATE["tokens"][token] = {"user_id": user_id, "project_id": project_id}
        expires = _now() + datetime.timedelta(hours=1)
        body = {"token": {
            "methods": methods, "expires_at": _iso(expires), "issued_at": _iso(_now()),
            "user": {"id": user_id, "name": user_id, "domain": {"id": "default",
                                                                "name": "Default"}},
            "roles": [{"id": "member", "name": "member"}, {"id": "admin", "name": "admin"}],
            "catalog": self._catalog(project_id),
        }}
        if project_id:
            body["token"]["project"] = {"id": project_id, "name": project_id,
                                        "domain": {"id": "default", "name": "Default"}}
        if domain_id:
            body["token"]["domain"] = {"id": domain_id, "name": domain_id}
        if trust:
            body["token"]["OS-TRUST:trust"] = {"id": trust["id"], "impersonation": True,
                                               "trustee_user": {"id": trust["trustee_user_id"]},
                                               "trustor_user": {"id": trust["trustor_user_id"]}}
        self._send(201, body, {"X-Subject-Token": token})

    def _auth(self) -> None:
        auth = self._body()["auth"]
        identity = auth["identity"]
        scope = auth.get("scope") or {}
        methods = identity["methods"]
        if "token" in methods:
            token = identity["token"]["id"]
            with LOCK:
                known = STATE["tokens"].get(token)
                revoked = token in STATE["revoked_tokens"]
            if revoked or (known is None and not token.startswith("user-")):
                return self._send(401, {"error": {"code": 401, "message": "token expired"}})
            user_id = known["user_id"] if known else token.split("-", 2)[1]
        else:
            user = identity["password"]["user"]
            user_id = user.get("id") or user.get("name")
            with LOCK:
                record = STATE["users"].get(user_id)
                if record is None:
                    record = next((u for u in STATE["users"].values()
                                   if u["name"] == user_id), None)
            if record is not None:
                if record["password"] != user.get("password"):
                    return self._send(401, {"error": {"code": 401, "message": "bad password"}})
                user_id = record["id"]
        trust = None
        if "OS-TRUST:trust" in scope:
            with LOCK:
                trust = STATE["trusts"].get(scope["OS-TRUST:trust"]["id"])
            if trust is None or trust["trustee_user_id"] != user_id:
                return self._send(401, {"error": {"code": 401, "message": "trust not found"}})
            return self._issue(trust["trustor_user_id"], trust["project_id"], None, trust,
                               methods)
        project = scope.get("project") or {}
        domain = scope.get("domain") or {}
        self._issue(user_id, project.get("id") or project.get("name"),
                    domain.get("id") or domain.get("name"), None, methods)

    def _keystone(self, method: str, path: str, query: dict) -> None:
        self._count(f"keystone {method} {re.sub(r'/[0-9a-f]{32}', '/ID', path)}")
        if method == "DELETE":
            with LOCK:
                failing = STATE["control"]["keystone_fail_deletes"] > 0
                if failing:
                    STATE["control"]["keystone_fail_deletes"] -= 1
            if failing:
                return self._send(503, {"error": {"code": 503,
                                                  "message": "Keystone is unavailable"}})
        if path in ("", "/v3") and method == "GET":
            return self._send(200, {"version": {"id": "v3.14", "status": "stable", "links": [
                {"rel": "self", "href": f"http://{self.headers.get('Host')}/v3/"}]}})
        if path == "/v3/auth/tokens" and method == "POST":
            return self._auth()
        if path == "/v3/auth/tokens" and method == "GET":
            return self._send(200, {"token": {}})
        if path == "/v3/users" and method == "GET":
            with LOCK:
                prefix = (query.get("name__startswith") or [""])[0]
                users = [u for u in STATE["users"].values()
                         if (not query.get("name") or u["name"] == query["name"][0])
                         and u["name"].startswith(prefix)]
            return self._send(200, {"users": users})
        if path == "/v3/users" and method == "POST":
            user = self._body()["user"]
            record = {"id": uuid.uuid4().hex, "name": user["name"],
                      "domain_id": user.get("domain_id"), "password": user.get("password"),
                      "enabled": True}
            with LOCK:
                if any(u["name"] == record["name"] and u["domain_id"] == record["domain_id"]
                       for u in STATE["users"].values()):
                    return self._send(409, {"error": {"code": 409,
                                                      "message": "Duplicate user name"}})
                STATE["users"][record["id"]] = record
            return self._send(201, {"user": record})
        match = re.fullmatch(r"/v3/users/([^/]+)", path)
        if match:
            with LOCK:
                record = STATE["users"].get(match.group(1))
                if record is None:
                    return self._send(404, {"error": {"code": 404, "message": "no user"}})
                if method == "DELETE":  # as Keystone: the user's trusts go with it
                    del STATE["users"][record["id"]]
                    for trust_id in [t["id"] for t in STATE["trusts"].values()
                                     if record["id"] in (t["trustee_user_id"],
                                                         t["trustor_user_id"])]:
                        del STATE["trusts"][trust_id]
                    return self._send(204)
                if method == "PATCH":
                    record.update(self._body()["user"])
                return self._send(200, {"user": record})
        if path == "/v3/OS-TRUST/trusts" and method == "GET":
            with LOCK:
                trusts = [t for t in STATE["trusts"].values()
                          if all(t[key] == query[key][0]
                                 for key in ("trustor_user_id", "trustee_user_id")
                                 if query.get(key))]
            return self._send(200, {"trusts": trusts})
        if path == "/v3/OS-TRUST/trusts" and method == "POST":
            body = self._body()["trust"]
            trust = {"id": uuid.uuid4().hex, "trustor_user_id": body["trustor_user_id"],
                     "trustee_user_id": body["trustee_user_id"],
                     "project_id": body.get("project_id"), "impersonation": True,
                     "roles": body.get("roles", [])}
            with LOCK:
                STATE["trusts"][trust["id"]] = trust
            self._hang("hang_after", "POST trust")
            return self._send(201, {"trust": trust})
        match = re.fullmatch(r"/v3/OS-TRUST/trusts/([^/]+)", path)
        if match and method == "DELETE":
            with LOCK:
                gone = STATE["trusts"].pop(match.group(1), None)
            return self._send(204 if gone else 404)
        self._send(404, {"error": {"code": 404, "message": f"no route {path}"}})

    # --- heat --------------------------------------------------------------------------
    def _fault(self) -> bool:
        with LOCK:
            control = STATE["control"]
            if control["hang_count"] > 0:
                control["hang_count"] -= 1
                hang = control["hang_seconds"]
            else:
                hang = 0
            if control["fail_5xx_after"] > 0:  # let this many calls through first
                control["fail_5xx_after"] -= 1
                fail = False
            elif control["fail_5xx"] > 0:
                control["fail_5xx"] -= 1
                fail = True
            else:
                fail = False
        if hang:
            time.sleep(hang)
        if fail:
            self._send(503, {"error": {"message": "Heat is down for maintenance"}})
        return fail

    def _hang(self, knob: str, method: str) -> None:
        """One-shot ``hang_before`` (the request waits before it is carried out: Heat busy
        or slow) or ``hang_after`` (the change is made, then the answer never comes: a
        conductor dies)."""
        with LOCK:
            hang = STATE["control"][knob]
            if not hang or hang["method"] != method:
                return
            STATE["control"][knob] = None
        time.sleep(hang["seconds"])

    def _admin(self) -> bool:
        """Magnum's service identity (a token of the ``service`` project) is an admin: like
        Heat's admins it reaches any project's stack by id (never by name)."""
        with LOCK:
            token = STATE["tokens"].get(self.headers.get("X-Auth-Token", ""))
        return bool(token) and token["project_id"] == "service"

    def _find(self, tenant: str, ident: str) -> Stack | None:
        with LOCK:
            stack = STATE["stacks"].get(ident)
            if stack is not None and self._admin():
                tenant = stack.tenant
            if stack is None:
                stack = next((s for s in STATE["stacks"].values()
                              if s.name == ident and not s.gone and s.tenant == tenant), None)
        if stack is None or stack.gone or stack.tenant != tenant:
            return None
        return stack

    def _heat(self, method: str, path: str, query: dict) -> None:
        parts = path.split("/")[3:]  # after /heat/v1
        tenant = parts[0]
        rest = parts[1:]
        kind = re.sub(r"/[0-9a-f-]{36}", "/ID", "/" + "/".join(rest[:1] + rest[3:4]))
        self._count(f"heat {method} {kind}")
        if self._fault():
            return
        self._hang("hang_before", method)
        if rest == ["stacks"] and method == "GET":
            ids = set(query.get("id", []))
            names = set(query.get("name", []))
            every = query.get("global_tenant") == ["True"] and self._admin()
            with LOCK:
                unlisted = set(STATE["control"]["unlisted"])  # a list that misses stacks
                found = [s.body() for s in STATE["stacks"].values()
                         if (every or s.tenant == tenant) and not s.gone
                         and s.id not in unlisted
                         and (not ids or s.id in ids) and (not names or s.name in names)]
            return self._send(200, {"stacks": found})
        if rest == ["stacks"] and method == "POST":
            body = self._body()
            name = body["stack_name"]
            with LOCK:
                if any(s.name == name and s.tenant == tenant and not s.gone
                       for s in STATE["stacks"].values()):
                    return self._send(409, {"error": {"message": f"Stack {name} exists"}})
                stack = Stack(tenant, name, body.get("parameters") or {},
                              self.headers.get("X-Auth-Token", ""))
                STATE["stacks"][stack.id] = stack
            self._hang("hang_after", "POST")
            return self._send(201, {"stack": {"id": stack.id, "links": []}})
        if len(rest) < 2:
            return self._send(404, {"error": {"message": "not found"}})
        idents = rest[1:-1] if rest[-1] == "resources" else rest[1:]
        stack = self._find(tenant, idents[-1])
        if stack is None:
            return self._send(404, {"error": {"message": "The Stack could not be found."}})
        if rest[-1] == "resources":
            resources = []
            if stack.status == "FAILED":
                resources.append({
                    "resource_name": "kube_masters", "resource_type": "OS::Heat::ResourceGroup",
                    "resource_status": f"{stack.action}_FAILED", "physical_resource_id": "",
                    "resource_status_reason": "Error: resources[0]: boom", "links": []})
                resources.append({
                    "resource_name": "kube-master", "resource_type": "OS::Nova::Server",
                    "resource_status": f"{stack.action}_FAILED", "physical_resource_id": "x1",
                    "resource_status_reason": "ResourceInError: No valid host was found",
                    "links": []})
            return self._send(200, {"resources": resources})
        if method == "GET":
            return self._send(200, {"stack": stack.body(outputs="resolve_outputs" not in query
                                                        or query["resolve_outputs"][0] != "False")})
        if method in ("PATCH", "PUT"):
            with LOCK:
                if stack.status == "IN_PROGRESS":
                    return self._send(409, {"error": {"message": "Stack is in progress"}})
                stack.params.update(self._body().get("parameters") or {})
                stack.updated = _now()
                stack._begin("UPDATE")
            self._hang("hang_after", "PATCH")
            return self._send(202)
        if method == "DELETE":
            with LOCK:
                if stack.action != "DELETE" or stack.status == "FAILED":  # retried
                    stack._begin("DELETE")
            self._hang("hang_after", "DELETE")
            return self._send(204)
        self._send(405, {"error": {"message": "method not allowed"}})


def serve(port: int) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    return server


if __name__ == "__main__":
    srv = serve(int(sys.argv[1]))
    print("ready", flush=True)
    srv.serve_forever()
