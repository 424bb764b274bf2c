"""The database restarting mid-operation, and conductors whose clocks are 60 s off (issue 12,
fault suite), on the real cloud with MariaDB reached through a TCP cut.

* Every connection to the database is cut for a while during an upgrade: the operation
  goes on once the database answers again, and finishes once.
* A conductor 60 s ahead and one 60 s behind, each on a network-namespace host of its own
  with its own clock (libfaketime), work beside a conductor with the right clock through a
  long upgrade: leases expire by the database server's clock, so none takes a live lease
  (no conductor logs "Lost the lease") and the upgrade is done once.

Both are the long job's (``tox -e faults``); CI covers the mechanisms with the stand-in
(tests/functional/conductor/test_faults.py: dropped database connections, 60 s ahead and
behind).
"""

from __future__ import annotations

import time

import faultharness as fh
import pytest

pytestmark = [pytest.mark.localcloud, pytest.mark.faults_long]


@pytest.fixture(scope="module")
def dbcut():
    cut = fh.TcpCut(fh.SERVERS["mysql"][:2])
    yield cut
    cut.stop()


@pytest.fixture(scope="module")
def magnum(start_magnum, dbcut):
    with start_magnum(backend="mysql", db_address=dbcut.address) as magnum:
        yield magnum


#: Glance is not behind the fault proxy (the etcd hand-over of a lone master uses it).
GLANCE_PORT = 9292
#: libfaketime preloaded into the conductor itself (as tests/functional/conductor does),
#: its monotonic clock left true so that timed waits keep working.
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"


def _skewed(offset: int) -> list[str]:
    return ["env", f"LD_PRELOAD={LIBFAKETIME}", f"FAKETIME={offset:+d}s",
            "FAKETIME_DONT_FAKE_MONOTONIC=1"]


def _complete_cluster(api: fh.Api, template: dict, label: str) -> dict:
    uuid_ = api.create_cluster(fh.new_name(label), template["uuid"]).json()["uuid"]
    return api.wait_status(uuid_, "CREATE_COMPLETE", fh.BOUND["create"])


def _finished_upgrade(api: fh.Api, cloud: fh.Cloud, cluster: dict, new_template: dict) -> dict:
    done = api.wait_status(cluster["uuid"], "UPDATE_COMPLETE", fh.BOUND["update"])
    assert done["cluster_template_id"] == new_template["uuid"]
    api.assert_history(cluster["uuid"], ("cluster_upgrade", "succeeded"))
    assert [k for k, _ in api.history(cluster["uuid"])].count("cluster_upgrade") == 1
    fh.assert_owns_once(cloud, done)
    return done


def test_database_cut_during_an_upgrade(fleet, api, template, new_template, dbcut, proxy,
                                        cloud):
    cluster = _complete_cluster(api, template, "dbcut")
    since = proxy.last_event_id()
    api.upgrade(cluster["uuid"], new_template["uuid"], expect=(202,))
    proxy.wait_event(120, "the upgrade's stack update sent", since=since, listener="heat",
                     method="PATCH")
    dbcut.cut()
    time.sleep(15)  # the outage: longer than a lease renewal interval
    dbcut.restore()
    done = _finished_upgrade(api, cloud, cluster, new_template)
    fh.delete_and_check(api, cloud, done)


def test_conductors_60s_ahead_and_behind_take_no_live_lease(fleet, api, template,
                                                           new_template, dbcut, proxy,
                                                           cloud):
    ports = [fh.BROKER[1], dbcut.port, GLANCE_PORT, *proxy.ports.values()]
    hosts = {"ahead": fh.NetnsHost(ports), "behind": fh.NetnsHost(ports)}
    try:
        fleet.conductors["c2"].kill9()  # c1 keeps the right clock; the others do not
        for name, offset in (("ahead", 60), ("behind", -60)):
            fleet.start_conductor(name, prefix=[*hosts[name].prefix(), *_skewed(offset)])
        cluster = _complete_cluster(api, template, "skew")
        api.upgrade(cluster["uuid"], new_template["uuid"], expect=(202,))
        done = _finished_upgrade(api, cloud, cluster, new_template)
        for name in ("c1", "ahead", "behind"):
            assert fleet.conductors[name].alive(), fleet.tail(name)
            assert "Lost the lease" not in fleet.tail(name, 100_000), \
                f"conductor {name} lost a live lease:\n{fleet.tail(name)}"
        fh.delete_and_check(api, cloud, done)
    finally:
        for name in ("ahead", "behind"):
            if name in fleet.conductors:
                fleet.conductors[name].kill9()
        for host in hosts.values():
            host.remove()
