"""RabbitMQ restarts while casts are in flight, and is down during ``POST /v1/clusters``
(issue 12, fault suite), on the real cloud with a RabbitMQ node of this module's own.

The casts are lost with the node's transient queues; the requests are not, because each was
recorded before its 202 and a conductor's reconciler starts what no cast started. A create
accepted while the broker is down is one cluster, never two.
"""

from __future__ import annotations

import faultharness as fh
import pytest

pytestmark = pytest.mark.localcloud


@pytest.fixture(scope="module")
def rabbit(run_dir):
    node = fh.PrivateRabbit(run_dir)
    yield node
    node.stop()


@pytest.fixture(scope="module")
def magnum(start_magnum, rabbit):
    with start_magnum(broker=rabbit.address) as magnum:
        yield magnum


def test_restart_with_casts_in_flight_and_create_while_down(fleet, api, template, rabbit,
                                                            cloud):
    before = {c["uuid"] for c in api.clusters()}
    conductors = fleet.live_conductors()
    for conductor in conductors:
        conductor.pause()  # connected, consuming nothing: the next cast waits in its queue
    try:
        queued = api.create_cluster(fh.new_name("inflight"), template["uuid"]).json()["uuid"]
        rabbit.crash()  # the queued cast is gone with the node
        while_down = api.create_cluster(fh.new_name("down"), template["uuid"]).json()["uuid"]
        assert {c["uuid"] for c in api.clusters()} - before == {queued, while_down}
        rabbit.start()
    finally:
        for conductor in conductors:
            conductor.resume()
    for uuid_ in (queued, while_down):
        cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
        fh.assert_owns_once(cloud, cluster)
        api.assert_history(uuid_, ("cluster_create", "succeeded"))
    assert {c["uuid"] for c in api.clusters()} - before == {queued, while_down}
    for uuid_ in (queued, while_down):
        fh.delete_and_check(api, cloud, api.cluster(uuid_))
