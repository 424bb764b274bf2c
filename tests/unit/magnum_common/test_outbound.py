"""Which service a thread waits for: the tracked session names it, by URL for Keystone,
through helper threads too. Against real sockets on 127.0.0.1 (one that answers, one that
never answers, a closed port)."""

from __future__ import annotations

import concurrent.futures
import http.server
import socket
import threading

import pytest
import requests

from magnum_common import outbound


class _Answer(http.server.BaseHTTPRequestHandler):
    #: The X-OpenStack-Request-ID of each request received (None: not sent).
    seen: list[str | None] = []

    def do_GET(self):
        self.seen.append(self.headers.get(outbound.REQUEST_ID_HEADER))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def silent():
    """A listening socket that accepts and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


def _closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def test_an_answered_request_is_not_unanswered(server):
    outbound.forget()
    assert outbound.tracked("Heat").get(f"{server}/v1/stacks?x=1", timeout=5).ok
    assert outbound.unanswered() is None


def test_a_timeout_names_the_service_method_and_url(silent):
    outbound.forget()
    with pytest.raises(requests.Timeout):
        outbound.tracked("Barbican").get(f"{silent}/v1/secrets?limit=1", timeout=0.2)
    call = outbound.unanswered()
    assert (call.service, call.method, call.url, call.error) == (
        "Barbican", "GET", f"{silent}/v1/secrets", "timed out")
    assert call.describe() == f"Barbican did not answer (GET {silent}/v1/secrets: " \
                              "timed out after 0.2 s)"
    outbound.forget()
    assert outbound.unanswered() is None


def test_a_refused_connection_and_keystone_by_url():
    base = f"http://127.0.0.1:{_closed_port()}"
    outbound.name_endpoint(f"{base}/identity/v3", "Keystone")
    assert outbound.service_of(f"{base}/identity/v3/auth/tokens", "Heat") == "Keystone"
    assert outbound.service_of(f"{base}/identityx", "Heat") == "Heat"
    outbound.forget()
    with pytest.raises(requests.ConnectionError):
        outbound.tracked("Heat").post(f"{base}/identity/v3/auth/tokens", timeout=2)
    call = outbound.unanswered()
    assert (call.service, call.error) == ("Keystone", "connection failed")
    assert "connection failed" in call.describe()


def test_a_helper_thread_counts_as_its_caller(silent):
    outbound.forget()
    session = outbound.tracked("Barbican")

    def store():
        with pytest.raises(requests.Timeout):
            session.get(f"{silent}/v1/secrets", timeout=(0.2, 0.2))

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(outbound.for_caller(store)).result()
    call = outbound.unanswered()
    assert call is not None and call.service == "Barbican" and call.timeout == 0.2
    assert call.owner == threading.get_ident()
    outbound.forget()
    assert outbound.unanswered() is None


def test_requests_carry_the_operation_request_id_helpers_included(server):
    """The id an operation acts for reaches the service (its global request id), from the
    thread and from its helpers; other ids and a forgotten one are not sent."""
    rid = "req-0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9"
    _Answer.seen.clear()
    session = outbound.tracked("Heat")
    outbound.act_for(rid)
    session.get(f"{server}/v1/stacks", timeout=5)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(outbound.for_caller(
            lambda: session.get(f"{server}/v1/stacks", timeout=5))).result()
        pool.submit(lambda: session.get(f"{server}/v1/stacks", timeout=5)).result()
    outbound.act_for("req-1; DROP")
    session.get(f"{server}/v1/stacks", timeout=5)
    outbound.act_for(rid)
    outbound.forget()
    session.get(f"{server}/v1/stacks", timeout=5)
    assert _Answer.seen == [rid, rid, None, None, None]
