"""Deletes that stop what runs (issue 12, point 6 "a DELETE takes over a stuck operation at
once", and point 3 for node groups), on the real cloud.

* A node-group DELETE while the node group's own create waits for Heat (its stack request
  held after Heat took it) supersedes the create at once: the node group's stack is deleted
  while Heat still creates it, the row goes, the cluster ends UPDATE_COMPLETE with its own
  stack only, and the held answer, released, changes nothing.
* A second DELETE while the first one hangs, its conductor paused (SIGSTOP) waiting for
  Heat's answer to the stack delete and its lease far from expiry, takes the delete over:
  the other conductor finishes it, the cluster is gone with nothing left well before the
  lease would have lapsed, and the resumed conductor writes nothing (its lease token is
  fenced). Long job (``tox -e faults``).
"""

from __future__ import annotations

import time

import faultharness as fh
import pytest

pytestmark = [pytest.mark.localcloud, pytest.mark.faults_long]

#: A lease far longer than a delete takes (a takeover, not an expiry, must end the hang);
#: a delete that noted no step for 5 s counts as hung.
LEASE = 180
OPTIONS = {"conductor": {"lease_seconds": LEASE, "delete_takeover_after": 5}}

STACK_CREATE = ("heat", "POST", "/stacks$")
STACK_DELETE = ("heat", "DELETE", "/stacks/")


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum(conductor_options=OPTIONS) as magnum:
        yield magnum


def _hold(proxy: fh.FaultProxy, step: tuple[str, str, str], what: str, start) -> dict:
    """Hold the answer of ``step`` once the service took it; the held event."""
    listener, method, path = step
    since = proxy.last_event_id()
    rule = proxy.rule("hold_response", listener=listener, method=method, path=path, times=1)
    start()
    event = proxy.wait_event(fh.BOUND["update"], what, since=since, rule=rule,
                             state="held_response")
    proxy.clear(rule)
    return event


def _deletes(magnum: fh.Magnum, uuid_: str) -> list[dict]:
    """The cluster's delete records, oldest first (they outlive the cluster row)."""
    return magnum.rows("SELECT state, result_reason FROM cluster_operation "
                       "WHERE cluster_id = :c AND kind = 'cluster_delete' ORDER BY id", c=uuid_)


def test_nodegroup_delete_stops_its_create_held_in_heat(fleet, api, template, proxy, cloud):
    uuid_ = api.create_cluster(fh.new_name("ngdel"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    event = _hold(proxy, STACK_CREATE, "the node group's stack create held",
                  lambda: api.create_nodegroup(uuid_, "held", expect=(202,)))
    assert len(cloud.stacks(fh.stack_prefix(cluster))) == 2  # Heat creates it

    assert api.delete_nodegroup(uuid_, "held").status_code in (202, 204)
    shown = {ng["name"]: ng["status"] for ng in api.nodegroups(uuid_)}
    assert shown["held"] == "DELETE_IN_PROGRESS", shown
    fh.wait_for(lambda: "held" not in {ng["name"] for ng in api.nodegroups(uuid_)},
                fh.BOUND["update"], "the node group deleted", 2)
    done = api.wait_status(uuid_, "UPDATE_COMPLETE", fh.BOUND["update"])
    proxy.release(event["id"])  # the create's answer reaches a fenced conductor
    kinds = [kind_state for kind_state in api.history(uuid_)
             if kind_state[0].startswith("nodegroup_")]
    assert kinds == [("nodegroup_delete", "succeeded"), ("nodegroup_create", "superseded")]
    fh.wait_for(lambda: len(cloud.stacks(fh.stack_prefix(cluster))) == 1,
                fh.BOUND["delete"], "the node group's stack gone", 3)
    cloud.the_stack(done)
    assert api.cluster(uuid_)["status"] == "UPDATE_COMPLETE"
    fh.delete_and_check(api, cloud, done, footprint)


def test_second_delete_takes_over_a_hung_delete(fleet, api, template, proxy, cloud):
    uuid_ = api.create_cluster(fh.new_name("hungdel"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    event = _hold(proxy, STACK_DELETE, "the stack delete held",
                  lambda: api.delete(uuid_, expect=(202, 204)))
    victim = fleet.conductor_of(event)
    victim.pause()
    try:
        started = time.monotonic()

        def taken_over() -> bool:
            api.delete(uuid_, expect=(202, 204, 404))
            return len(_deletes(fleet, uuid_)) == 2
        fh.wait_for(taken_over, 60, "the hung delete taken over", 2)
        assert _deletes(fleet, uuid_)[0]["state"] == "superseded"
        api.wait_gone(uuid_, fh.BOUND["delete"])
        assert time.monotonic() - started < LEASE - 30, "ended by the lease, not the takeover"
    finally:
        victim.resume()
    proxy.release(event["id"])  # the first delete's answer reaches a fenced conductor
    fh.wait_for(lambda: "outcome=lease-lost" in fleet.tail(victim.name, 400), 60,
                "the resumed conductor stopped by the fence", 2)
    rows = _deletes(fleet, uuid_)
    assert [r["state"] for r in rows] == ["superseded", "succeeded"], rows
    assert "Superseded by the cluster delete" in rows[0]["result_reason"]
    assert fleet.rows("SELECT uuid FROM cluster WHERE uuid = :c", c=uuid_) == []
    cloud.nothing_left(cluster, footprint)
