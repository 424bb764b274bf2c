"""The health monitor against a real local HTTP(S) server playing the Kubernetes API."""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from drivers.heat.monitor import K8sMonitor
from magnum_common import states


def _nodes(*ready):
    return {"items": [{"metadata": {"name": f"node-{i}"},
                       "status": {"conditions": [{"type": "Ready", "status": r}]}}
                      for i, r in enumerate(ready)]}


class FakeAPI(BaseHTTPRequestHandler):
    healthz = "ok"
    nodes = _nodes("True")

    def do_GET(self):
        if self.path == "/healthz":
            body, code = self.healthz.encode(), 200 if self.healthz == "ok" else 500
        elif self.path == "/api/v1/nodes":
            body, code = json.dumps(self.nodes).encode(), 200
        else:
            body, code = b"{}", 404
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _serve(handler, context=None):
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if context is not None:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def api():
    handler = type("API", (FakeAPI,), {})
    server = _serve(handler)
    yield handler, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_healthy_when_api_and_every_node_are_ready(api):
    handler, url = api
    handler.nodes = _nodes("True", "True")
    status, reason = K8sMonitor(url, None).poll_health()
    assert status == states.HEALTHY
    assert reason == {"api": "ok", "node-0.Ready": True, "node-1.Ready": True}


def test_unhealthy_when_a_node_is_not_ready_or_the_api_says_so(api):
    handler, url = api
    handler.nodes = _nodes("True", "False")
    status, reason = K8sMonitor(url, None).poll_health()
    assert status == states.UNHEALTHY and reason["node-1.Ready"] is False
    handler.healthz = "etcd failed"
    status, reason = K8sMonitor(url, None).poll_health()
    assert (status, reason) == (states.UNHEALTHY, {"api": "etcd failed"})


def test_unreachable_or_unknown_api_is_unknown_never_an_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    status, reason = K8sMonitor(f"http://127.0.0.1:{port}", None).poll_health()
    assert status == states.UNKNOWN and reason["api"].startswith("unreachable")
    assert K8sMonitor(None, None).poll_health()[0] == states.UNKNOWN
    status, reason = K8sMonitor(f"https://127.0.0.1:{port}", None).poll_health()
    assert status == states.UNKNOWN and "certificates" in reason["api"]


def _cert(subject, issuer_key, key, issuer=None, ca=False, san=None):
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder()
               .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
               .issuer_name(issuer or x509.Name([x509.NameAttribute(NameOID.COMMON_NAME,
                                                                    subject)]))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=1))
               .not_valid_after(now + datetime.timedelta(hours=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if san:
        builder = builder.add_extension(x509.SubjectAlternativeName(san), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(obj):
    if isinstance(obj, x509.Certificate):
        return obj.public_bytes(serialization.Encoding.PEM).decode()
    return obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def test_https_with_the_clusters_client_certificates(tmp_path):
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("cluster-ca", ca_key, ca_key, ca=True)
    server_key = ec.generate_private_key(ec.SECP256R1())
    server_cert = _cert("apiserver", ca_key, server_key, issuer=ca.subject,
                        san=[x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])
    client_key = ec.generate_private_key(ec.SECP256R1())
    client_cert = _cert("admin", ca_key, client_key, issuer=ca.subject)
    (tmp_path / "ca.pem").write_text(_pem(ca))
    (tmp_path / "srv.pem").write_text(_pem(server_cert) + _pem(server_key))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "srv.pem")
    context.load_verify_locations(tmp_path / "ca.pem")
    context.verify_mode = ssl.CERT_REQUIRED
    server = _serve(type("API", (FakeAPI,), {}), context)
    url = f"https://127.0.0.1:{server.server_address[1]}"
    try:
        status, reason = K8sMonitor(url, (_pem(ca), _pem(client_cert), _pem(client_key))
                                    ).poll_health()
        assert (status, reason) == (states.HEALTHY, {"api": "ok", "node-0.Ready": True})
        other_key = ec.generate_private_key(ec.SECP256R1())
        stranger = _cert("stranger", other_key, other_key)
        status, reason = K8sMonitor(url, (_pem(ca), _pem(stranger), _pem(other_key))
                                    ).poll_health()
        assert status == states.UNKNOWN
    finally:
        server.shutdown()
