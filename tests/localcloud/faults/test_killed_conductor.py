"""kill -9 of the conductor at a recorded step (issue 12, fault suite), on the real cloud.

Each case holds one call of an operation at the fault proxy *after* the service acted on it
(``hold_response``: the trust exists, the bundle is stored, Heat took the stack request) so
the conductor that sent it never learns the outcome, and kills that conductor's whole process
group. The other conductor takes the operation over once the lease lapses. Afterwards the
cluster reached the operation's target status, owns exactly one stack, trustee user, trust
and set of certificate bundles (checked as admin in Keystone, Heat and Barbican), the
history says the operation succeeded, and a delete leaves nothing behind.

The CI subset kills the create at its stack request; the long job (``tox -e faults``) kills
every step of create, resize, upgrade, CA rotation and delete.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable

import faultharness as fh
import pytest

pytestmark = pytest.mark.localcloud

#: (listener, method, path regex) of each recorded step the cases cut at.
TRUST = ("keystone", "POST", "/OS-TRUST/trusts")
BUNDLE = ("barbican", "POST", "/v1/containers")
STACK_CREATE = ("heat", "POST", "/stacks$")
STACK_UPDATE = ("heat", "PATCH", "/stacks/")
STACK_DELETE = ("heat", "DELETE", "/stacks/")
TRUST_DELETE = ("keystone", "DELETE", "/OS-TRUST/trusts/")


def kill_at_step(magnum: fh.Magnum, proxy: fh.FaultProxy, step: tuple[str, str, str],
                 start: Callable[[], object]) -> fh.Conductor:
    """Start the operation, hold the answer of ``step`` once it reached the service, and
    kill -9 the conductor that is waiting for it; returns the victim."""
    listener, method, path = step
    since = proxy.last_event_id()
    rule = proxy.rule("hold_response", listener=listener, method=method, path=path, times=1)
    # An upgrade or CA rotation answers once a conductor sent its stack update: the request
    # waits in a thread of its own while the update is held.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        answer = pool.submit(start)
        event = proxy.wait_event(fh.BOUND["update"], f"{method} {path} at {listener} held",
                                 since=since, rule=rule, state="held_response")
        victim = magnum.conductor_of(event)
        victim.kill9()
        proxy.release(event["id"])  # the answer goes to a dead socket
        proxy.clear(rule)
        answer.result(timeout=180)
    return victim


def _complete_cluster(api: fh.Api, template: dict, label: str) -> dict:
    uuid_ = api.create_cluster(fh.new_name(label), template["uuid"]).json()["uuid"]
    return api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])


def test_kill_at_the_stack_create_leaves_one_stack(fleet, api, template, proxy, cloud):
    name = fh.new_name("kcreate")
    created: dict[str, str] = {}

    def start():
        created["uuid"] = api.create_cluster(name, template["uuid"]).json()["uuid"]

    victim = kill_at_step(fleet, proxy, STACK_CREATE, start)
    cluster = api.wait_status(created["uuid"], "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    api.assert_history(cluster["uuid"], ("cluster_create", "succeeded"))
    assert not victim.alive()
    fh.delete_and_check(api, cloud, cluster, footprint)


@pytest.mark.faults_long
@pytest.mark.parametrize("step", [TRUST, BUNDLE], ids=["trust", "bundle"])
def test_kill_at_a_create_step_is_finished_by_the_other(fleet, api, template, proxy, cloud,
                                                        step):
    name = fh.new_name("kstep")
    created: dict[str, str] = {}

    def start():
        created["uuid"] = api.create_cluster(name, template["uuid"]).json()["uuid"]

    kill_at_step(fleet, proxy, step, start)
    cluster = api.wait_status(created["uuid"], "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    api.assert_history(cluster["uuid"], ("cluster_create", "succeeded"))
    fh.delete_and_check(api, cloud, cluster, footprint)


@pytest.mark.faults_long
@pytest.mark.parametrize("operation", ["resize", "upgrade", "rotate_ca"])
def test_kill_at_the_stack_update_is_resumed(fleet, api, template, new_template, proxy,
                                             cloud, operation):
    cluster = _complete_cluster(api, template, "kupd")
    before_ca = api.ca(cluster["uuid"])
    starts = {"resize": lambda: api.resize(cluster["uuid"], 2, expect=(202,)),
              "upgrade": lambda: api.upgrade(cluster["uuid"], new_template["uuid"],
                                             expect=(202,)),
              "rotate_ca": lambda: api.rotate_ca(cluster["uuid"], expect=(202,))}
    kind = {"resize": "cluster_resize", "upgrade": "cluster_upgrade",
            "rotate_ca": "rotate_ca_certificate"}[operation]
    kill_at_step(fleet, proxy, STACK_UPDATE, starts[operation])
    done = api.wait_status(cluster["uuid"], "UPDATE_COMPLETE", fh.BOUND["update"])
    api.assert_history(cluster["uuid"], (kind, "succeeded"))
    footprint = fh.assert_owns_once(cloud, done)
    if operation == "resize":
        assert done["node_count"] == 2
    elif operation == "upgrade":
        assert done["cluster_template_id"] == new_template["uuid"]
    else:
        assert api.ca(cluster["uuid"]) != before_ca
    fh.delete_and_check(api, cloud, done, footprint)


@pytest.mark.faults_long
@pytest.mark.parametrize("step", [STACK_DELETE, TRUST_DELETE], ids=["stack", "trust"])
def test_kill_during_delete_leaves_nothing(fleet, api, template, proxy, cloud, step):
    cluster = _complete_cluster(api, template, "kdel")
    footprint = fh.assert_owns_once(cloud, cluster)
    kill_at_step(fleet, proxy, step,
                 lambda: api.delete(cluster["uuid"], expect=(202, 204)))
    api.wait_gone(cluster["uuid"], fh.BOUND["delete"])
    cloud.nothing_left(cluster, footprint)
