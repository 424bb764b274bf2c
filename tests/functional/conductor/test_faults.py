"""Faults with real processes: conductors killed with -9, broker outage, DB connections
dropped, Heat failing. Two conductor processes (config files, the shipped console entry
with the tests' stand-in driver) share one database and one broker."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import sqlalchemy as sa
import support

from magnum_common import exception, states
from magnum_common.conductor_api import ConductorAPI
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from magnum_common.db.services import magnum_services
from magnum_conductor.conf import BINARY


def _complete(uuid_: str, status: str, timeout: float = 60) -> object:
    return support.wait_for(
        lambda: (c := clusters.get_by_uuid(None, uuid_)).status == status
        and c.operation is None and c, timeout=timeout, what=status)


def _ignore_errors(func):
    """The API side of a call whose conductor is killed: its error is not under test."""
    def run(*args):
        try:
            func(*args)
        except exception.MagnumException:
            pass
    return run


def _created(fleet, standin) -> object:
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    return ctx, cluster


@pytest.mark.parametrize("hang", ["before-create", "after-create"])
def test_kill_during_create_another_conductor_finishes_one_stack(fleet, standin, hang):
    fleet.start("c1")
    fleet.start("c2")
    if hang == "before-create":
        standin.control(hang_count=1, hang_seconds=120)   # the first Heat call never answers
    else:
        standin.control(hang_after={"method": "POST", "seconds": 120})
    ctx, cluster = _created(fleet, standin)
    holder = support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).trust_id
                              and fleet.holder(cluster.uuid), what="create under way")
    if hang == "after-create":
        support.wait_for(lambda: standin.stacks_named(cluster.name), what="stack created")
    time.sleep(0.5)
    fleet.procs[holder].kill()
    row = _complete(cluster.uuid, states.CREATE_COMPLETE)
    support.wait_for(lambda: fleet.holder(cluster.uuid) is None, what="lease released")
    assert len(standin.stacks_named(cluster.name)) == 1
    assert row.stack_id == standin.stacks_named(cluster.name)[0]["id"]
    assert len(standin.state()["trusts"]) == 1


@pytest.mark.parametrize("operation", ["resize", "upgrade", "delete"])
def test_kill_during_resize_upgrade_or_delete_is_resumed(fleet, standin, operation):
    fleet.start("c1")
    fleet.start("c2")
    standin.control(create_seconds=0.5)
    ctx, cluster = _created(fleet, standin)
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    api = ConductorAPI()
    caller = None
    if operation == "resize":
        standin.control(hang_after={"method": "PATCH", "seconds": 120})
        api.cluster_resize(ctx, cluster.uuid, 4, worker.uuid)
    elif operation == "upgrade":
        # A call: the API waits for the conductor, which dies while Heat holds the request.
        new_template = support.make_template(labels={"kube_tag": "v1.32.1"})
        master = nodegroups.get_in_cluster(None, cluster.uuid, "default-master")
        standin.control(hang_after={"method": "PATCH", "seconds": 120})
        caller = threading.Thread(target=_ignore_errors(api.cluster_upgrade), daemon=True,
                                  args=(ctx, cluster.uuid, new_template.uuid, 1, master.uuid))
        caller.start()
    else:
        standin.control(hang_after={"method": "DELETE", "seconds": 120})
        api.cluster_delete(ctx, cluster.uuid)
    holder = support.wait_for(lambda: standin.state()["control"]["hang_after"] is None
                              and fleet.holder(cluster.uuid), what="Heat request sent")
    fleet.procs[holder].kill()
    if operation == "resize":
        _complete(cluster.uuid, states.UPDATE_COMPLETE)
        assert nodegroups.get_by_uuid(None, worker.uuid).node_count == 4
        assert standin.stacks_named(cluster.name)[0]["parameters"]["number_of_minions"] == "4"
    elif operation == "upgrade":
        row = _complete(cluster.uuid, states.UPDATE_COMPLETE)
        assert row.cluster_template_id == new_template.uuid
        assert row.labels["kube_tag"] == "v1.32.1"
        assert standin.stacks_named(cluster.name)[0]["parameters"]["kube_tag"] == "v1.32.1"
    else:
        support.wait_for(lambda: support.cluster_status(cluster.uuid) == "GONE",
                         timeout=60, what="cluster destroyed")
        assert standin.state()["trusts"] == []
    assert len(standin.state()["stacks"]) == 1


def test_broker_outage_loses_no_request(conductor_options, standin, tmp_path, db_any):
    proxy = support.BrokerProxy()
    fleet = support.Fleet(tmp_path, db_any, conductor_options, proxy.transport_url)
    try:
        fleet.start("c1")
        fleet.start("c2")
        from magnum_common import rpc

        rpc.cleanup()
        support.apply_options({"DEFAULT": {"transport_url": proxy.transport_url},
                               "conductor": {"cast_retry": 0}})
        ctx = support.requester()
        template = support.make_template()
        first = support.record_cluster(ctx, template)
        time.sleep(3)  # conductors connected through the proxy
        proxy.stop()
        second = support.record_cluster(ctx, template)
        ConductorAPI().cluster_create(ctx, second.uuid)  # recorded: accepted all the same
        proxy.start()
        _complete(first.uuid, states.CREATE_COMPLETE)   # its cast was never sent at all
        _complete(second.uuid, states.CREATE_COMPLETE)
        for cluster in (first, second):
            assert len(standin.stacks_named(cluster.name)) == 1
            [record] = operations.list_in_cluster(None, cluster.uuid)
            assert record.state == states.OPERATION_SUCCEEDED
    finally:
        fleet.stop()
        proxy.stop()
        from magnum_common import rpc

        rpc.cleanup()


def _drop_connections(db_url: str) -> int:
    """Kill every server-side connection to the test database except our own."""
    engine = sa.create_engine(db_url.split("?")[0])
    name = engine.url.database
    try:
        with engine.connect() as conn:
            if engine.dialect.name == "mysql":
                me = conn.execute(sa.text("SELECT CONNECTION_ID()")).scalar()
                ids = conn.execute(sa.text(
                    "SELECT id FROM information_schema.processlist WHERE db = :db AND id != :me"),
                    {"db": name, "me": me}).scalars().all()
                for pid in ids:
                    conn.execute(sa.text(f"KILL {int(pid)}"))
                return len(ids)
            pids = conn.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :db AND pid != pg_backend_pid()"), {"db": name}).all()
            conn.commit()
            return len(pids)
    finally:
        engine.dispose()


@pytest.mark.parametrize("db_any", ["mysql", "postgresql"], indirect=True)
def test_db_connections_dropped_work_continues(fleet, standin, db_any):
    fleet.start("c1")
    standin.control(create_seconds=3)
    ctx, cluster = _created(fleet, standin)
    support.wait_for(lambda: clusters.get_by_uuid(None, cluster.uuid).stack_id,
                     what="stack requested")
    from magnum_common.db import api as db_api

    db_api.reset_engine()
    assert _drop_connections(db_any) > 0
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    other = support.record_cluster(ctx, support.make_template(), name=f"x{uuid.uuid4().hex[:6]}")
    ConductorAPI().cluster_create(ctx, other.uuid)
    _complete(other.uuid, states.CREATE_COMPLETE)


#: libfaketime preloaded directly: the faketime wrapper would leave the conductor outside
#: the process group the fleet stops.
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def _faketime(offset: int) -> list[str]:
    """Run a conductor with its clock ``offset`` seconds off (libfaketime); its monotonic
    clock stays true (else libfaketime makes timed waits hang; run_conductor.py routes
    sleeps around its clock_nanosleep, which fails then)."""
    return ["env", f"LD_PRELOAD={LIBFAKETIME}", f"FAKETIME={offset:+d}s",
            "FAKETIME_DONT_FAKE_MONOTONIC=1"]


def _reporting(host: str) -> None:
    """Until the conductor's second heartbeat is in: the first comes before its RPC
    server listens, the second after."""
    support.wait_for(lambda: (row := magnum_services.get_by_host_and_binary(host, BINARY))
                     and row.report_count >= 2, timeout=60, what=f"conductor {host} reporting")


@pytest.mark.parametrize("db_any", ["mysql"], indirect=True)
def test_conductor_60s_ahead_takes_no_live_lease(fleet, standin, db_any):
    """Leases expire by the database server's clock: a conductor whose clock runs 60 s
    ahead leaves a lease with 30 s to go alone, then takes the operation once it is free.
    (SQLite is one host's file: its clock is that host's.)"""
    fleet.start("ahead", prefix=_faketime(60))
    _reporting("ahead")
    ctx = support.requester()
    cluster = support.record_cluster(ctx, support.make_template())
    assert clusters.acquire_lock(cluster.uuid, "live-holder", 40)
    ConductorAPI().cluster_create(ctx, cluster.uuid)
    # the cast waits lease_wait (2 s); the reconciler runs every second once pending_grace
    # (3 s) has passed: by its clock the lease expired 20 s ago
    time.sleep(10)
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert (row.lock_owner, row.operation, row.trust_id) == ("live-holder", "cluster_create",
                                                             None)
    clusters.release_lock(cluster.uuid, "live-holder")
    _complete(cluster.uuid, states.CREATE_COMPLETE)
    assert len(standin.stacks_named(cluster.name)) == 1


@pytest.mark.parametrize("db_any", ["postgresql"], indirect=True)
def test_conductor_60s_behind_keeps_its_lease(fleet, standin, db_any):
    """A conductor whose clock runs 60 s behind writes expiries that are still in the
    future on the server's clock: a second conductor never takes its live lease."""
    fleet.values = {**fleet.values, "heat_client": {"timeout": 30}}
    fleet.start("behind", prefix=_faketime(-60))
    # c2 listens on a topic of its own: the create is cast to the conductor behind, while
    # c2's reconciler and sync look at the same rows
    fleet.values = {**fleet.values, "conductor": {**fleet.values["conductor"],
                                                  "topic": f"{uuid.uuid4().hex}-c2"}}
    fleet.start("c2")
    _reporting("behind")
    _reporting("c2")
    standin.control(hang_count=1, hang_seconds=12)  # the stack create takes a while
    ctx, cluster = _created(fleet, standin)
    support.wait_for(lambda: fleet.holder(cluster.uuid) == "behind"
                     and clusters.get_by_uuid(None, cluster.uuid).trust_id,
                     what="the create under way on the conductor behind")
    owners = set()
    deadline = time.monotonic() + 8  # lease 4 s: two lease lengths, renewals included
    while time.monotonic() < deadline:
        owners.add(fleet.holder(cluster.uuid))
        time.sleep(0.2)
    assert "c2" not in owners and "behind" in owners, owners
    _complete(cluster.uuid, states.CREATE_COMPLETE, timeout=90)
    assert len(standin.stacks_named(cluster.name)) == 1
