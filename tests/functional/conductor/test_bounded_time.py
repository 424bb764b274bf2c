"""Bounded time: a service that accepts connections and never answers cannot hold an
operation. Its session times out (the reason names the service), and past the operation's
maximum run time the watchdog fails it and frees the lease even when no timeout fires."""

from __future__ import annotations

import socket
import threading
import time

import pytest
import support

from magnum_common import states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups


class BlackHole:
    """A listening socket that accepts every connection and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.sock.close()
        for conn in self.accepted:
            conn.close()


@pytest.fixture
def black_hole():
    hole = BlackHole()
    yield hole
    hole.close()


def _failed(uuid_: str, timeout: float) -> object:
    """The failed cluster once its lease is free (released after the failure is written)."""
    return support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, uuid_)).status == states.CREATE_FAILED
        and c.operation is None and c.lock_owner is None and c, timeout=timeout,
        what="CREATE_FAILED, lease released")


def _create_against_stalled_keystone(black_hole: BlackHole) -> tuple[object, float]:
    support.apply_options({"keystone_auth": {"auth_url": f"{black_hole.url}/v3"}})
    ctx = support.requester()  # its token is checked at the stalled Keystone too
    cluster = support.record_cluster(ctx, support.make_template())
    started = time.monotonic()
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    return cluster, started


def test_stalled_keystone_times_out_naming_keystone(conductor_options, conductor, black_hole,
                                                    standin):
    support.apply_options({"keystone_auth": {"timeout": 1}})
    cluster, _ = _create_against_stalled_keystone(black_hole)
    row = _failed(cluster.uuid, 30)
    assert row.status_reason.startswith("Keystone did not answer (POST "
                                        f"{black_hole.url}/v3/auth/tokens: timed out after 1 s)")
    assert {ng.status for ng in nodegroups.list(None, {"cluster_id": cluster.uuid})} == \
        {states.CREATE_FAILED}
    assert standin.state()["stacks"] == []


def test_operation_past_its_maximum_time_fails_and_frees_the_lease(conductor_options,
                                                                   conductor, black_hole,
                                                                   standin):
    """No session timeout fires (Keystone's is 60 s): the watchdog ends the create after
    its 3 s, names what the handler waits for, and the next request can start at once."""
    support.apply_options({"keystone_auth": {"timeout": 60},
                           "conductor": {"operation_timeouts": {"cluster_create": "3"}}})
    cluster, started = _create_against_stalled_keystone(black_hole)
    row = _failed(cluster.uuid, 30)
    assert time.monotonic() - started < 20
    assert row.status_reason.startswith(
        f"cluster_create did not finish within 3 s: Keystone did not answer (POST "
        f"{black_hole.url}/v3/auth/tokens: no answer for ")
    assert row.lock_expires_at is None
    support.wait_for(lambda: not conductor.executor.leases.held(cluster.uuid),
                     what="the conductor forgets the lease")
    assert {ng.status for ng in nodegroups.list(None, {"cluster_id": cluster.uuid})} == \
        {states.CREATE_FAILED}
    # The stuck handler thread is refused any later write: the row stays as the
    # watchdog left it.
    time.sleep(1)
    assert clusters.get_by_uuid(None, cluster.uuid).status_reason == row.status_reason
