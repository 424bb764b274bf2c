"""The etcd hand-over's Glance side against the local cloud's real Glance (as demo): a
request nobody answers, an answer that does not verify, and one that does.

The answering node is the node simulator's code (``localcloud/helpers/etcdsim.py``, sealed
as ``40-etcd.sh`` seals), with demo's token standing in for the trustee's.
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from drivers.heat import etcd_handover
from localcloud.helpers import etcdsim, nodeboot
from magnum_common import exception


@pytest.fixture
def glance(demo_session):
    url = demo_session.get_endpoint(service_type="image", interface="public")
    glance = etcd_handover.Glance(demo_session, url)
    cluster = str(uuid.uuid4())
    yield glance, cluster
    etcd_handover.cleanup(glance, cluster)


def _answer_later(glance: etcd_handover.Glance, cluster: str, snapshot=None) -> threading.Thread:
    """The master's timer: once the request is there, upload a sealed snapshot."""
    node = nodeboot.Node("srv", {"GLANCE_URL": glance.url, "CLUSTER_UUID": cluster})
    token = glance.session.get_token()

    def run() -> None:
        for _ in range(40):
            if snapshot is None:
                answered = etcdsim.answer_request(node, {"/registry/k": {"v": 1}}, token)
            else:
                answered = _answer_with(glance, cluster, snapshot)
            if answered:
                return
            time.sleep(0.5)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _answer_with(glance: etcd_handover.Glance, cluster: str, snapshot: bytes) -> str | None:
    import base64

    queued = [i for i in glance.images(cluster) if i["status"] == "queued"]
    if not queued:
        return None
    peer = base64.b64decode(queued[0][etcd_handover.KEY_PROPERTY])
    glance.session.put(f"{glance.url}/v2/images/{queued[0]['id']}/file",
                       data=etcdsim.seal(peer, snapshot),
                       headers={"Content-Type": "application/octet-stream"})
    return queued[0]["id"]


def test_a_verified_snapshot_is_handed_to_the_new_master(glance):
    g, cluster = glance
    _answer_later(g, cluster)
    handover = etcd_handover.take(g, cluster, timeout=60, interval=1)
    image = g.get(handover.image_id)
    assert image["status"] == "active" and image["visibility"] == "private"
    assert image["os_hidden"] is True and image[etcd_handover.CLUSTER_PROPERTY] == cluster
    assert image["os_hash_value"] == handover.sha512  # what the new master checks
    env = handover.node_env()
    assert set(env) == {"ETCD_RESTORE_IMAGE", "ETCD_RESTORE_SHA512", "ETCD_RESTORE_KEY"}
    # the next hand-over replaces it; only one snapshot per cluster is ever kept
    _answer_later(g, cluster)
    again = etcd_handover.take(g, cluster, timeout=60, interval=1)
    assert [i["id"] for i in g.images(cluster)] == [again.image_id]


def test_an_unanswered_request_fails_and_is_removed(glance):
    g, cluster = glance
    with pytest.raises(exception.EtcdHandoverFailed, match="no snapshot arrived within 3 s"):
        etcd_handover.take(g, cluster, timeout=3, interval=1)
    assert g.images(cluster) == []


def test_a_snapshot_that_does_not_verify_fails_and_is_removed(glance):
    g, cluster = glance
    _answer_later(g, cluster, snapshot=b"not an etcd snapshot, no hash trailer")
    with pytest.raises(exception.EtcdHandoverFailed, match="cannot be restored"):
        etcd_handover.take(g, cluster, timeout=60, interval=1)
    assert g.images(cluster) == []
