"""Bounded time on the real cloud (issue 12, point 6): Keystone or Barbican accepting
connections and never answering cannot hold an operation. The conductors' Keystone session
times out and the create fails naming Keystone; a Barbican request without a timeout short
enough is ended by the operation's maximum run time, naming Barbican. Either way the lease
is freed, nothing stays in progress, and the cluster can be deleted at once."""

from __future__ import annotations

import time

import faultharness as fh
import pytest

pytestmark = pytest.mark.localcloud

#: Short bounds so each case takes seconds: Keystone's requests time out after 5 s,
#: Barbican's would only after 120 s, but a create may run 25 s under its lease.
OPTIONS = {"keystone_auth": {"timeout": 5}, "barbican_client": {"timeout": 120},
           "conductor": {"operation_timeouts": "cluster_create:25"}}


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum(conductors=("c1",), conductor_options=OPTIONS) as magnum:
        yield magnum


@pytest.fixture
def fleet(magnum, proxy):
    """One conductor is enough here; the cloud answers again after each case."""
    proxy.reset()
    yield magnum
    proxy.reset()


def _create_failing(api: fh.Api, template: dict, proxy: fh.FaultProxy, listener: str,
                    path: str) -> tuple[dict, float]:
    """Stall ``listener`` once the create reaches it; the cluster once it failed."""
    since = proxy.last_event_id()
    rule = proxy.rule("stall", listener=listener, path=path)
    started = time.monotonic()
    uuid_ = api.create_cluster(fh.new_name("slow"), template["uuid"]).json()["uuid"]
    proxy.wait_event(60, f"a request stalled at {listener}", since=since, rule=rule,
                     state="stalled")
    cluster = api.wait_status(uuid_, "CREATE_FAILED", 90)
    return cluster, time.monotonic() - started


def _lease_free(magnum: fh.Magnum, uuid_: str) -> bool:
    rows = magnum.rows("SELECT lock_owner FROM cluster WHERE uuid = :u", u=uuid_)
    return bool(rows) and rows[0]["lock_owner"] is None


def test_stalled_keystone_fails_the_create_naming_keystone(fleet, api, template, proxy,
                                                           cloud):
    cluster, took = _create_failing(api, template, proxy, "keystone", "/v3/")
    assert "Keystone did not answer" in cluster["status_reason"], cluster["status_reason"]
    assert "timed out after 5 s" in cluster["status_reason"]
    assert took < 60
    fh.wait_for(lambda: _lease_free(fleet, cluster["uuid"]), 30, "the lease freed")
    proxy.reset()
    fh.delete_and_check(api, cloud, cluster)


def test_stalled_barbican_is_ended_by_the_maximum_run_time(fleet, api, template, proxy,
                                                           cloud):
    cluster, took = _create_failing(api, template, proxy, "barbican", "/v1/")
    reason = cluster["status_reason"]
    assert reason.startswith("cluster_create did not finish within 25 s: Barbican did not "
                             "answer ("), reason
    assert took < 80
    assert all(ng["status"] == "CREATE_FAILED" for ng in api.nodegroups(cluster["uuid"]))
    fh.wait_for(lambda: _lease_free(fleet, cluster["uuid"]), 30, "the lease freed")
    proxy.reset()  # Barbican answers again: the delete leaves nothing of the cluster
    fh.delete_and_check(api, cloud, cluster)
