"""The cluster lease on SQLite, MariaDB and PostgreSQL: one holder, renewal, takeover."""

from __future__ import annotations

import time

from magnum_common.db.clusters import clusters
from magnum_conductor.engine.lease import LeaseLost, LeaseRegistry


def _cluster() -> str:
    return clusters.create(None, {"name": "c", "project_id": "p", "status": "CREATE_COMPLETE"}).uuid


def test_one_holder_at_a_time(db_any):
    uuid = _cluster()
    a, b = LeaseRegistry("a"), LeaseRegistry("b")
    lease = a.try_acquire(uuid)
    assert lease is not None
    assert b.try_acquire(uuid) is None
    assert a.try_acquire(uuid) is None  # the same process never takes it twice
    lease.release()
    assert clusters.get_by_uuid(None, uuid).lock_owner is None
    assert b.try_acquire(uuid) is not None


def test_renewal_keeps_a_short_lease_alive(db_any):
    from oslo_config import cfg

    cfg.CONF.set_override("lease_seconds", 2, "conductor")
    uuid = _cluster()
    a, b = LeaseRegistry("a"), LeaseRegistry("b")
    with a.try_acquire(uuid) as lease:
        time.sleep(3)
        assert b.try_acquire(uuid) is None
        lease.ensure()
    assert b.try_acquire(uuid) is not None


def test_expired_lease_is_taken_over_and_old_holder_stops(db_any):
    from oslo_config import cfg

    cfg.CONF.set_override("lease_seconds", 2, "conductor")
    uuid = _cluster()
    a, b = LeaseRegistry("a"), LeaseRegistry("b")
    stale = a.try_acquire(uuid)  # never entered: no renewal, as if its process froze
    time.sleep(2.2)
    with b.try_acquire(uuid):
        stale.__enter__()
        # its first renewal (after a third of the lease) finds the lease gone
        assert stale.lost.wait(10)
        try:
            stale.ensure()
        except LeaseLost:
            pass
        else:
            raise AssertionError("a lost lease must refuse further work")
        stale.release()
        assert clusters.get_by_uuid(None, uuid).lock_owner.startswith("b/")


def test_expiry_is_the_database_servers_clock(db_any, monkeypatch):
    """A host clock 60 s ahead changes nothing: the lease is set and compared by the
    server (SQLite: the embedded engine's clock, which is this host's)."""
    import datetime

    from magnum_common.db import api, models

    uuid = _cluster()
    before = api.server_now()
    assert clusters.acquire_lock(uuid, "a", 40)
    expires = clusters.get_by_uuid(None, uuid).lock_expires_at
    assert datetime.timedelta(seconds=38) < expires - before < datetime.timedelta(seconds=43)
    ahead = models.utcnow() + datetime.timedelta(seconds=60)
    monkeypatch.setattr(models, "utcnow", lambda: ahead)
    assert not clusters.acquire_lock(uuid, "b", 40)
    assert clusters.renew_lock(uuid, "a", 40)
    assert clusters.get_by_uuid(None, uuid).lock_owner == "a"


def test_a_lease_taken_over_by_a_delete_is_given_up_in_the_same_process(db_any):
    """The API frees the lease when a DELETE takes the cluster over: the process still
    holding it may take the cluster again (a new token), the old lease refuses further work
    at its next check, and its release neither frees nor forgets the new one."""
    uuid = _cluster()
    registry = LeaseRegistry("a")
    old = registry.try_acquire(uuid)
    assert registry.try_acquire(uuid) is None  # still ours in the database
    assert clusters.compare_and_swap(None, uuid, {}, {"lock_owner": None,
                                                      "lock_expires_at": None})
    new = registry.try_acquire(uuid)
    assert new is not None and new.owner != old.owner
    assert old.lost.is_set() and registry.held(uuid)
    for check in (old.ensure, old.confirm):
        try:
            check()
        except LeaseLost:
            pass
        else:
            raise AssertionError("a lease taken over must refuse further work")
    new.confirm()
    old.release()
    assert clusters.get_by_uuid(None, uuid).lock_owner == new.owner
    assert registry.held(uuid) and registry.try_acquire(uuid) is None
    new.release()
    assert clusters.get_by_uuid(None, uuid).lock_owner is None and not registry.held(uuid)
