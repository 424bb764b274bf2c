"""Heat answering 5xx or never answering, Barbican down during a delete, and a trust
revoked before the delete (issue 12, fault suite), on the real cloud behind the fault proxy.

Heat's 5xx on the stack create is retried and the cluster is built once; so is a stack
create Heat never answers (the request times out and is sent again). With Barbican
down, a delete still ends (the cluster row goes), the certificate bundles it could not
remove are recorded as orphans that ``magnum-status upgrade check`` reports, and once
Barbican answers again the conductors' sweeper removes them: nothing of the cluster is left.
A cluster whose trust was revoked outside Magnum is still deleted, as the service, with
nothing left. A stack create Heat carries out only after the cluster's delete (its POST
held by the proxy until then) leaves a stack orphan that the sweeper deletes once the stack
appears; a credential rotation that failed leaves two trustees and trusts, and the delete
removes both.

Both are the long job's (``tox -e faults``): CI covers the same mechanisms with the
OpenStack stand-in (tests/functional/conductor: test_operations' Heat 5xx, test_effects'
orphans and sweeper).
"""

from __future__ import annotations

import subprocess

import faultharness as fh
import pytest

pytestmark = pytest.mark.localcloud

#: Clean-up gives up quickly and the sweeper runs every few seconds, so a case takes seconds;
#: a stack create that was sent can land for 15 s x 3 attempts + 2 x 2 s of back-off (49 s).
OPTIONS = {"conductor": {"cleanup_attempts": 2, "cleanup_backoff": 0.5,
                         "orphan_sweep_interval": 3, "heat_attempts": 3,
                         "heat_backoff_max": 2.0},
           "heat_client": {"timeout": 15}}


@pytest.fixture(scope="module")
def magnum(start_magnum):
    with start_magnum(conductor_options=OPTIONS) as magnum:
        yield magnum


def _status_check(magnum: fh.Magnum) -> subprocess.CompletedProcess:
    return subprocess.run([str(fh.BIN / "magnum-status"), *magnum.config_args(), "upgrade",
                           "check"], capture_output=True, text=True, timeout=120)


@pytest.mark.faults_long
def test_heat_5xx_on_the_stack_create_is_retried(fleet, api, template, proxy, cloud):
    since = proxy.last_event_id()
    rule = proxy.rule("error", listener="heat", method="POST", path="/stacks$", times=2,
                      status=503)
    uuid_ = api.create_cluster(fh.new_name("h5xx"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    refused = [e for e in proxy.events(since) if e.get("rule") == rule]
    assert [e.get("status") for e in refused] == [503, 503]
    footprint = fh.assert_owns_once(cloud, cluster)
    api.assert_history(uuid_, ("cluster_create", "succeeded"))
    fh.delete_and_check(api, cloud, cluster, footprint)


@pytest.mark.faults_long
def test_barbican_down_during_delete_leaves_orphans_the_sweeper_removes(fleet, api, template,
                                                                        proxy, cloud):
    uuid_ = api.create_cluster(fh.new_name("bdown"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    proxy.down("barbican")
    try:
        api.delete(uuid_, expect=(202, 204))
        api.wait_gone(uuid_, fh.BOUND["delete"])
        orphans = fleet.rows("SELECT kind FROM orphan WHERE cluster_id = :u", u=uuid_)
        assert {o["kind"] for o in orphans} == {"certificate"}, orphans
        report = _status_check(fleet)
        assert "orphan(s) of deleted clusters" in report.stdout, report.stdout + report.stderr
        assert not cloud.cluster_stacks(cluster)
    finally:
        proxy.up("barbican")
    fh.wait_for(lambda: not fleet.rows("SELECT id FROM orphan WHERE cluster_id = :u",
                                       u=uuid_), 120, "the sweeper removed the orphans", 2)
    cloud.nothing_left(cluster, footprint)
    assert "No orphans" in _status_check(fleet).stdout


@pytest.mark.faults_long
def test_heat_silent_on_the_stack_create_is_sent_again(fleet, api, template, proxy, cloud):
    since = proxy.last_event_id()
    rule = proxy.rule("stall", listener="heat", method="POST", path="/stacks$", times=1)
    uuid_ = api.create_cluster(fh.new_name("hstall"), template["uuid"]).json()["uuid"]
    proxy.wait_event(120, "the stack create stalled", since=since, rule=rule,
                     state="stalled")
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    api.assert_history(uuid_, ("cluster_create", "succeeded"))
    proxy.reset()
    fh.delete_and_check(api, cloud, cluster, footprint)


@pytest.mark.faults_long
def test_trust_revoked_before_the_delete_leaves_nothing(fleet, api, template, cloud):
    uuid_ = api.create_cluster(fh.new_name("revoked"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    footprint = fh.assert_owns_once(cloud, cluster)
    [row] = fleet.rows("SELECT trust_id FROM cluster WHERE uuid = :u", u=uuid_)
    cloud.revoke_trust(row["trust_id"])
    fh.delete_and_check(api, cloud, cluster, footprint)


def _orphans(magnum: fh.Magnum, cluster_uuid: str) -> list[dict]:
    return magnum.rows("SELECT kind, ref, last_error FROM orphan WHERE cluster_id = :u",
                       u=cluster_uuid)


@pytest.mark.faults_long
def test_a_stack_create_heat_carries_out_after_the_delete_is_swept(fleet, api, template,
                                                                   proxy, cloud):
    """The stack create's POST is held by the proxy (Heat has not seen it) while a DELETE
    runs: the delete finds no stack, the cluster goes, and the journaled, unconfirmed
    create is a stack orphan. Released, the POST makes the stack in Heat after the
    cluster is gone; the sweeper deletes it and, once the create could no longer land,
    drops the orphan: nothing is left (issue 12, gap a)."""
    since = proxy.last_event_id()
    rule = proxy.rule("hold", listener="heat", method="POST", path="/stacks$", times=1)
    uuid_ = api.create_cluster(fh.new_name("late"), template["uuid"]).json()["uuid"]
    held = proxy.wait_event(120, "the stack create held", since=since, rule=rule,
                            state="held")
    cluster = api.cluster(uuid_)
    api.delete(uuid_, expect=(202, 204))
    api.wait_gone(uuid_, fh.BOUND["delete"])
    [orphan] = _orphans(fleet, uuid_)
    assert orphan["kind"] == "stack" and orphan["ref"].startswith(fh.stack_prefix(cluster))
    report = _status_check(fleet)
    table = " ".join(report.stdout.replace("|", " ").split())  # its lines wrap anywhere
    assert f"stack {orphan['ref']} of cluster {uuid_}" in table, report.stdout + report.stderr
    assert not cloud.cluster_stacks(cluster)
    proxy.release(held["id"])
    proxy.wait_event(60, "Heat made the stack after the delete", since=since, rule=rule,
                     status=201)
    fh.wait_for(lambda: not _orphans(fleet, uuid_), 180, "the stack orphan swept", 2)
    deletes = [e for e in proxy.events(since) if e["listener"] == "heat"
               and e["method"] == "DELETE" and "/stacks/" in e["path"]]
    assert deletes, "the sweeper never asked Heat to delete the late stack"
    cloud.nothing_left(cluster)


@pytest.mark.faults_long
def test_the_delete_removes_what_a_failed_credential_rotation_left(fleet, api, template,
                                                                   proxy, cloud):
    """Heat fails the stack update of a credential rotation: the cluster keeps both
    trustees and trusts (its nodes may hold either). The cluster delete removes both,
    nothing is an orphan (issue 12, gap e)."""
    uuid_ = api.create_cluster(fh.new_name("rotfail"), template["uuid"]).json()["uuid"]
    cluster = api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])
    fh.assert_owns_once(cloud, cluster)
    rule = proxy.rule("error", listener="heat", method="PATCH", path="/stacks/", status=503)
    api.request("PATCH", f"/v1/credentials/{uuid_}", expect=(202,))
    api.wait_status(uuid_, "UPDATE_FAILED", fh.BOUND["update"])
    footprint = cloud.footprint(cluster)
    assert (len(footprint.trustee_users), len(footprint.trusts)) == (2, 2), \
        footprint.summary()
    proxy.clear(rule)
    fh.delete_and_check(api, cloud, cluster, footprint)
    assert not _orphans(fleet, uuid_)
