"""DELETE while a resize or an upgrade runs (issue 12, fault suite), on the real cloud.

The delete is accepted at once (204), supersedes the running operation, and the cluster is
gone with nothing of it left in Keystone, Heat or Barbican; the history names the
superseded operation. (A delete during the create is ``tests/localcloud/e2e/test_faults``.)
"""

from __future__ import annotations

import concurrent.futures

import faultharness as fh
import pytest

pytestmark = [pytest.mark.localcloud, pytest.mark.faults_long]


@pytest.mark.parametrize("operation", ["resize", "upgrade"])
def test_delete_while_the_stack_update_runs(fleet, api, template, new_template, proxy, cloud,
                                            operation):
    uuid_ = api.create_cluster(fh.new_name(f"d{operation[:3]}"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    since = proxy.last_event_id()
    start = {"resize": lambda: api.resize(uuid_, 2, expect=(202,)),
             "upgrade": lambda: api.upgrade(uuid_, new_template["uuid"], expect=(202,))}
    kind = {"resize": "cluster_resize", "upgrade": "cluster_upgrade"}[operation]
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        answer = pool.submit(start[operation])  # an upgrade answers once its update is sent
        proxy.wait_event(fh.BOUND["update"], "the stack update sent to Heat", since=since,
                         listener="heat", method="PATCH")
        assert api.delete(uuid_).status_code == 204
        answer.result(timeout=180)
    kinds = {k: state for k, state in api.history(uuid_)}
    assert kinds[kind] == "superseded", kinds
    api.wait_gone(uuid_, fh.BOUND["delete"])
    cloud.nothing_left(cluster, footprint)
