"""A tiny OpenStack REST client on urllib (Keystone identities/catalog, Glance images)."""

import json
import urllib.error
import urllib.parse
import urllib.request


class HTTPError(RuntimeError):
    def __init__(self, method, url, code, body):
        super().__init__("%s %s -> %s: %s" % (method, url, code, body[:500]))
        self.code = code
        self.body = body


def request(method, url, token=None, body=None, headers=None, timeout=60, raw=None):
    hdrs = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        hdrs["Content-Type"] = "application/json"
    if raw is not None:
        data = raw
        hdrs["Content-Type"] = "application/octet-stream"
    if token:
        hdrs["X-Auth-Token"] = token
    if headers:
        hdrs.update(headers)
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            text = resp.read().decode(errors="replace")
            result = json.loads(text) if text.strip().startswith(("{", "[")) else text
            return resp.status, dict(resp.headers), result
    except urllib.error.HTTPError as e:
        raise HTTPError(method, url, e.code, e.read().decode(errors="replace")) from None


def password_token(auth_url, username, password, project=None, domain=None,
                   user_domain="Default", project_domain="Default"):
    """(token, token body) for a password login scoped to a project or a domain."""
    auth = {
        "identity": {
            "methods": ["password"],
            "password": {
                "user": {"name": username, "domain": {"name": user_domain}, "password": password}
            },
        }
    }
    if project:
        auth["scope"] = {"project": {"name": project, "domain": {"name": project_domain}}}
    elif domain:
        auth["scope"] = {"domain": {"name": domain}}
    _, headers, body = request("POST", auth_url.rstrip("/") + "/auth/tokens", body={"auth": auth})
    token = headers.get("X-Subject-Token") or headers.get("x-subject-token")
    return token, body["token"]


def catalog_url(token_body, service_type, interface="public", region=None):
    for svc in token_body.get("catalog", []):
        if svc["type"] != service_type:
            continue
        for ep in svc["endpoints"]:
            if ep["interface"] == interface and (region is None or ep.get("region_id") == region):
                return ep["url"]
    return None


class Keystone:
    """Idempotent ensure_* helpers over the Keystone v3 admin API."""

    def __init__(self, auth_url, username, password, project="admin"):
        self.url = auth_url.rstrip("/")
        self.token, self.body = password_token(self.url, username, password, project=project)

    def _get(self, path, **query):
        q = ("?" + urllib.parse.urlencode(query)) if query else ""
        return request("GET", self.url + path + q, self.token)[2]

    def _post(self, path, body):
        return request("POST", self.url + path, self.token, body=body)[2]

    def _patch(self, path, body):
        return request("PATCH", self.url + path, self.token, body=body)[2]

    def _put(self, path):
        return request("PUT", self.url + path, self.token)

    def find(self, collection, name, **query):
        items = self._get("/" + collection, name=name, **query)[collection]
        return items[0] if items else None

    def domain(self, name, description=""):
        d = self.find("domains", name)
        if not d:
            d = self._post("/domains", {"domain": {"name": name, "description": description}})[
                "domain"
            ]
        return d["id"]

    def role(self, name):
        r = self.find("roles", name)
        if not r:
            r = self._post("/roles", {"role": {"name": name}})["role"]
        return r["id"]

    def project(self, name, domain_id="default", description=""):
        p = self.find("projects", name, domain_id=domain_id)
        if not p:
            p = self._post("/projects", {"project": {
                "name": name, "domain_id": domain_id, "description": description}})["project"]
        return p["id"]

    def user(self, name, password, domain_id="default", project_id=None, email=None):
        u = self.find("users", name, domain_id=domain_id)
        if not u:
            body = {"name": name, "password": password, "domain_id": domain_id, "enabled": True}
            if project_id:
                body["default_project_id"] = project_id
            if email:
                body["email"] = email
            u = self._post("/users", {"user": body})["user"]
        elif not self._password_works(u["id"], password):
            # keep the password in line with secrets.json (self-healing after a state reset);
            # only when needed: a password change revokes the user's tokens
            self._patch("/users/" + u["id"], {"user": {"password": password, "enabled": True}})
        return u["id"]

    def _password_works(self, user_id, password):
        body = {"auth": {"identity": {"methods": ["password"], "password": {
            "user": {"id": user_id, "password": password}}}}}
        try:
            request("POST", self.url + "/auth/tokens", body=body)
            return True
        except HTTPError:
            return False

    def grant_project(self, role_id, user_id, project_id):
        self._put("/projects/%s/users/%s/roles/%s" % (project_id, user_id, role_id))

    def grant_domain(self, role_id, user_id, domain_id):
        self._put("/domains/%s/users/%s/roles/%s" % (domain_id, user_id, role_id))

    def service(self, stype, name, description=""):
        s = self.find("services", name, type=stype)
        if not s:
            s = self._post("/services", {"service": {
                "type": stype, "name": name, "description": description, "enabled": True}})[
                "service"]
        return s["id"]

    def endpoints(self, service_id, url, region):
        existing = self._get("/endpoints", service_id=service_id)["endpoints"]
        for interface in ("public", "internal", "admin"):
            match = [e for e in existing
                     if e["interface"] == interface and e.get("region_id") == region]
            if match:
                for extra in match[1:]:
                    request("DELETE", self.url + "/endpoints/" + extra["id"], self.token)
                if match[0]["url"] != url:
                    self._patch("/endpoints/" + match[0]["id"], {"endpoint": {"url": url}})
            else:
                self._post("/endpoints", {"endpoint": {
                    "service_id": service_id, "interface": interface, "url": url,
                    "region_id": region, "enabled": True}})

    def remove_service(self, stype, name):
        s = self.find("services", name, type=stype)
        if s:
            request("DELETE", self.url + "/services/" + s["id"], self.token)
