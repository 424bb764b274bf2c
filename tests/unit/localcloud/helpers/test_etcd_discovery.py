"""The etcd discovery stand-in as etcd members and Magnum use it, served on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import ThreadingHTTPServer

import pytest

from localcloud.helpers import etcd_discovery


@pytest.fixture
def base(monkeypatch):
    monkeypatch.setattr(etcd_discovery.Handler, "log_message", lambda self, *args: None)
    server = ThreadingHTTPServer(("127.0.0.1", 0), etcd_discovery.Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _get(url: str):
    with urllib.request.urlopen(url, timeout=10) as answer:
        text = answer.read().decode()
        return json.loads(text) if answer.headers["Content-Type"] == "application/json" \
            else text


def test_a_discovery_url_its_size_and_its_members(base):
    url = _get(base + "/new?size=3")
    assert url.startswith(base + "/") and len(url.rsplit("/", 1)[1]) == 32
    assert _get(url + "/_config/size")["node"]["value"] == "3"
    assert _get(url)["node"]["nodes"] == []
    form = urllib.parse.urlencode({"value": "m1=https://127.0.0.5:2380"}).encode()
    put = urllib.request.Request(url + "/member-1", method="PUT", data=form)
    with urllib.request.urlopen(put, timeout=10) as answer:
        assert answer.status == 201
    nodes = _get(url)["node"]["nodes"]
    assert [n["value"] for n in nodes] == ["m1=https://127.0.0.5:2380"]
    assert _get(base + "/health") == {"health": "true"}


def test_unknown_tokens_and_bad_sizes(base):
    for path, code in (("/nothing", 404), ("/new?size=three", 400)):
        with pytest.raises(urllib.error.HTTPError) as raised:
            _get(base + path)
        assert raised.value.code == code
