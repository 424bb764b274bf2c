"""What a booting node learns from its user data, and the certificates it gets from Magnum.

A real node's Ignition or cloud-init writes ``/etc/magnum/bootstrap.env`` (base64 in the user
data: the node's settings and the cluster trustee's credentials, shell-quoted ``KEY=value``
lines) and ``/etc/magnum/runtime.env`` (``KEY=value`` lines Heat filled in: the node's name
and addresses, the API addresses); its bootstrap then logs in as the trustee with the
cluster's trust (or, with ``[trust] cluster_user_trust = false``, presents the cluster's node
token) and has Magnum sign its certificates (``drivers/common/fragments``). The node
simulator does the same here with :func:`read_node` and :func:`api_certificate`.

Runs in the cloud's virtualenv (``cryptography`` and ``PyYAML`` come with its services).
"""

import base64
import ipaddress
import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

BOOTSTRAP_ENV = "/etc/magnum/bootstrap.env"
RUNTIME_ENV = "/etc/magnum/runtime.env"
API_TLS_PORT = 6443
API_INSECURE_PORT = 8080
TIMEOUT = 20


class BootError(RuntimeError):
    """The node could not finish a bootstrap step (its API then stays down)."""


@dataclass
class Node:
    """One simulated node, as its bootstrap files describe it."""

    server_id: str
    env: dict = field(default_factory=dict)
    #: A master's etcd keyspace (:mod:`etcdsim`): what its API stores, e.g. ConfigMaps.
    etcd: dict = field(default_factory=dict)

    def get(self, key, default=""):
        return self.env.get(key) or default

    @property
    def cluster(self):
        return self.get("CLUSTER_UUID")

    @property
    def name(self):
        return self.get("NODE_NAME") or self.server_id

    @property
    def ip(self):
        return self.get("NODE_IP")

    @property
    def master(self):
        return self.get("IS_MASTER") == "true" or self.get("NODEGROUP_ROLE") == "master"

    @property
    def tls(self):
        return self.get("TLS_DISABLED") != "true"

    @property
    def port(self):
        return API_TLS_PORT if self.tls else API_INSECURE_PORT

    def api_addresses(self):
        """The addresses this master's API answers on: its own, and (as the load balancer or
        the floating IP in front of the masters) the cluster's private and public ones."""
        found = []
        for key in ("NODE_IP", "NODE_PUBLIC_IP", "API_PRIVATE_ADDRESS", "API_PUBLIC_ADDRESS"):
            value = self.get(key)
            if value and value not in found and _is_address(value):
                found.append(value)
        return found


def _is_address(value):
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return False
    return True


def _data_url(url):
    """The bytes of a ``data:`` URL (Ignition's file sources)."""
    if not url.startswith("data:"):
        return None
    meta, _, payload = url[len("data:"):].partition(",")
    if meta.endswith(";base64"):
        return base64.b64decode(payload)
    return urllib.parse.unquote_to_bytes(payload)


def user_data_files(user_data):
    """{path: text} of the files an Ignition config or a cloud-config writes."""
    text = (user_data or "").strip()
    files = {}
    if text.startswith("{"):
        for entry in (json.loads(text).get("storage") or {}).get("files") or []:
            content = _data_url(((entry.get("contents") or {}).get("source")) or "")
            if content is not None and (entry.get("contents") or {}).get("compression") != "gzip":
                files[entry.get("path")] = content.decode(errors="replace")
    elif text.startswith("#cloud-config"):
        import yaml

        for entry in (yaml.safe_load(text) or {}).get("write_files") or []:
            content = entry.get("content") or ""
            encoding = entry.get("encoding") or ""
            if encoding in ("b64", "base64"):
                content = base64.b64decode(content).decode(errors="replace")
            elif encoding:
                continue  # compressed scripts: not needed here
            files[entry.get("path")] = content
    return files


def parse_env(text):
    """``KEY=value`` lines, the value verbatim (bootstrap.env as the driver writes it,
    runtime.env as Heat filled it in), as magnum-bootstrap's load_settings reads them."""
    env = {}
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            env[key.strip()] = value
    return env


def read_node(server_id, user_data):
    """The node a server's user data describes, or None when it carries no Magnum bootstrap."""
    files = user_data_files(user_data)
    if BOOTSTRAP_ENV not in files:
        return None
    env = parse_env(files[BOOTSTRAP_ENV])
    env.update(parse_env(files.get(RUNTIME_ENV, "")))
    return Node(server_id, env)


# ----------------------------------------------------------------------------- Magnum

def _call(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Content-Type": "application/json", "Accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
            return resp.headers, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        raise BootError("%s %s: HTTP %s %s" % (method, url, e.code,
                                               e.read()[:300].decode(errors="replace"))) from None
    except (OSError, ValueError) as e:
        raise BootError("%s %s: %s" % (method, url, e)) from None


def trustee_token(node):
    """A token scoped to the cluster's trust, as the cluster's trustee (lib.sh trustee_token)."""
    headers, _ = _call("POST", node.get("AUTH_URL").rstrip("/") + "/auth/tokens", {"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "id": node.get("TRUSTEE_USER_ID"), "password": node.get("TRUSTEE_PASSWORD")}}},
        "scope": {"OS-TRUST:trust": {"id": node.get("TRUST_ID")}}}})
    token = headers.get("X-Subject-Token")
    if not token:
        raise BootError("Keystone gave the trustee no token")
    return token


def magnum_auth(node):
    """The header that opens Magnum's certificate routes to this node (lib.sh magnum_auth):
    the cluster's node token when the node holds no trust, else the trustee's token."""
    if node.get("NODE_TOKEN"):
        return {"X-Magnum-Node-Token": node.get("NODE_TOKEN")}
    return {"X-Auth-Token": trustee_token(node)}


def _magnum(node, auth, method, path, body=None):
    return _call(method, node.get("MAGNUM_URL").rstrip("/") + path, body, {
        **auth, "OpenStack-API-Version": "container-infra latest"})[1]


def _csr(node, key):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    sans = [x509.IPAddress(ipaddress.ip_address(a))
            for a in node.api_addresses() + ["127.0.0.1"]]
    sans += [x509.DNSName(n) for n in (node.name, "kubernetes", "kubernetes.default",
                                       "kubernetes.default.svc", "localhost")]
    csr = (x509.CertificateSigningRequestBuilder()
           .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
           .add_extension(x509.SubjectAlternativeName(sans), critical=False)
           .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH,
                                                 ExtendedKeyUsageOID.CLIENT_AUTH]),
                          critical=False)
           .sign(key, hashes.SHA256()))
    return csr.public_bytes(serialization.Encoding.PEM).decode()


def api_certificate(node):
    """(CA, certificate, key) PEMs of this master's API server, signed by the cluster CA
    through Magnum (``GET /v1/certificates/{cluster}``, ``POST /v1/certificates``)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    auth = magnum_auth(node)
    ca = _magnum(node, auth, "GET", "/certificates/" + node.cluster).get("pem")
    key = ec.generate_private_key(ec.SECP256R1())
    signed = _magnum(node, auth, "POST", "/certificates",
                     {"cluster_uuid": node.cluster, "csr": _csr(node, key)}).get("pem")
    if not (ca and signed and "BEGIN CERTIFICATE" in ca and "BEGIN CERTIFICATE" in signed):
        raise BootError("Magnum answered without certificates")
    key_pem = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    return ca, signed, key_pem
