"""The simulated Kubernetes API: what it serves, on which addresses, and when it stops."""

from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request
import uuid

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from localcloud.helpers import kubeapi, nodeboot
from magnum_conductor.pki import x509 as magnum_x509


def _node(name, ip, master, cluster, tls=False, **extra):
    return nodeboot.Node(f"id-{name}", {
        "CLUSTER_UUID": cluster, "NODE_NAME": name, "NODE_IP": ip, "KUBE_TAG": "v1.31.4",
        "IS_MASTER": "true" if master else "false",
        "NODEGROUP_ROLE": "master" if master else "worker",
        "TLS_DISABLED": "false" if tls else "true", **extra})


@pytest.fixture
def registry():
    reg = kubeapi.Registry()
    yield reg
    reg.close()


def _get(url, **kwargs):
    with urllib.request.urlopen(url, timeout=5, **kwargs) as resp:
        return resp.status, resp.read().decode()


def _ready(url, **kwargs):
    items = json.loads(_get(url + "/api/v1/nodes", **kwargs)[1])["items"]
    return {i["metadata"]["name"]: i["status"]["conditions"][0]["status"] for i in items}


def test_masters_serve_their_cluster_and_stopped_nodes_are_not_ready(registry):
    cluster = str(uuid.uuid4())
    registry.add("m0", _node("c-master-0", "127.99.0.10", True, cluster,
                             API_PRIVATE_ADDRESS="127.99.0.10"))
    registry.add("w0", _node("c-worker-0", "127.99.0.11", False, cluster))
    base = "http://127.99.0.10:8080"
    assert _get(base + "/healthz") == (200, "ok")
    assert json.loads(_get(base + "/version")[1])["gitVersion"] == "v1.31.4"
    assert _ready(base) == {"c-master-0": "True", "c-worker-0": "True"}
    with pytest.raises(urllib.error.URLError):  # workers run no API server
        _get("http://127.99.0.11:8080/healthz")

    registry.set_stopped(["c-worker-0"])
    assert _ready(base) == {"c-master-0": "True", "c-worker-0": "False"}
    registry.set_stopped([])
    assert _ready(base)["c-worker-0"] == "True"

    registry.set_stopped(["c-master-0"])  # the only master: its API goes away
    with pytest.raises(urllib.error.URLError):
        _get(base + "/healthz")
    registry.set_stopped([])
    registry.remove("m0")
    registry.remove("w0")
    with pytest.raises(urllib.error.URLError):
        _get(base + "/healthz")
    assert registry.listeners == {}


def test_the_load_balancer_address_is_served_while_any_master_runs(registry):
    cluster = str(uuid.uuid4())
    for i in range(2):
        registry.add(f"m{i}", _node(f"c-master-{i}", f"127.99.1.{10 + i}", True, cluster,
                                    API_PRIVATE_ADDRESS="127.99.1.100",
                                    API_PUBLIC_ADDRESS="127.99.2.100"))
    for address in ("127.99.1.100", "127.99.2.100", "127.99.1.11"):
        assert _get(f"http://{address}:8080/healthz") == (200, "ok")
    registry.set_stopped(["c-master-0"])
    assert _get("http://127.99.1.100:8080/healthz") == (200, "ok")
    with pytest.raises(urllib.error.URLError):
        _get("http://127.99.1.10:8080/healthz")
    assert _ready("http://127.99.2.100:8080") == {"c-master-0": "False", "c-master-1": "True"}


def _pem_key(key):
    return key.private_bytes(serialization.Encoding.PEM,
                             serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


def _signed(ca, csr_for):
    """(certificate, key) signed by Magnum's own signer with the CA, as the API would."""
    key = ec.generate_private_key(ec.SECP256R1())
    return magnum_x509.sign_csr(ca.certificate, ca.private_key, ca.passphrase,
                                csr_for(key)), _pem_key(key)


def _client_csr(key):
    return (x509.CertificateSigningRequestBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "admin")]))
            .sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode())


def test_tls_needs_a_client_certificate_of_the_cluster_ca(registry, tmp_path):
    ca = magnum_x509.generate_ca("cluster-ca")
    master = _node("c-master-0", "127.99.3.10", True, str(uuid.uuid4()), tls=True,
                   API_PRIVATE_ADDRESS="127.99.3.10")
    cert, key = _signed(ca, lambda k: nodeboot._csr(master, k))
    registry.add("m0", master, (ca.certificate, cert, key))
    client_cert, client_key = _signed(ca, _client_csr)
    for name, text in (("ca", ca.certificate), ("cert", client_cert), ("key", client_key)):
        (tmp_path / f"{name}.pem").write_text(text)
    ctx = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
    ctx.load_cert_chain(str(tmp_path / "cert.pem"), str(tmp_path / "key.pem"))
    assert _get("https://127.99.3.10:6443/healthz", context=ctx) == (200, "ok")
    anonymous = ssl.create_default_context(cafile=str(tmp_path / "ca.pem"))
    with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
        _get("https://127.99.3.10:6443/healthz", context=anonymous)


def _call(method, url, body=None):
    req = urllib.request.Request(url, method=method, data=json.dumps(body).encode()
                                 if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_configmaps_live_in_every_running_masters_etcd(registry):
    cluster = str(uuid.uuid4())
    m0 = _node("c-master-0", "127.99.0.30", True, cluster)
    m1 = _node("c-master-1", "127.99.0.31", True, cluster)
    registry.add("m0", m0)
    registry.add("m1", m1)
    url = "http://127.99.0.30:8080/api/v1/namespaces/default/configmaps"
    code, made = _call("POST", url, {"metadata": {"name": "kept"}, "data": {"k": "v"}})
    assert (code, made["data"]) == (201, {"k": "v"})
    assert _call("POST", url, {"metadata": {"name": "kept"}})[0] == 409
    assert m1.etcd["/registry/configmaps/default/kept"]["data"] == {"k": "v"}  # replicated
    # read from the other master, replaced with PUT, listed, deleted
    other = "http://127.99.0.31:8080/api/v1/namespaces/default/configmaps"
    assert _call("GET", other + "/kept")[1]["data"] == {"k": "v"}
    assert _call("PUT", other + "/kept", {"data": {"k": "w"}})[0] == 200
    assert [i["data"] for i in _call("GET", url)[1]["items"]] == [{"k": "w"}]
    assert _call("DELETE", url + "/kept")[0] == 200
    assert _call("GET", other + "/kept")[0] == 404
    assert _call("POST", url, {"data": {}})[0] == 400  # no name
    assert _call("PUT", "http://127.99.0.30:8080/api/v1/nodes/x", {})[0] == 405
    assert registry.take_changed() and not registry.take_changed()
