"""Clean-up that never leaks, with the database certificate store (x509keypair, SQLite):
a cluster's bundles removed, a certificate orphan swept once its removal succeeds, and the
sweeper's back-off bounded; stacks a delete may have missed watched and swept (the driver
and Keystone stood in for at their boundary), every trustee the records name found."""

from __future__ import annotations

import datetime
import types

import pytest
from oslo_config import cfg

from magnum_common import crypto, exception, states
from magnum_common.context import make_admin_context
from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations as records
from magnum_common.db.orphans import orphans
from magnum_common.drivers import registry
from magnum_conductor.engine import cleanup
from magnum_conductor.pki import cert_manager, x509
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


@pytest.fixture
def store(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")
    CONF.set_override("cleanup_backoff", 0, "conductor")
    return cert_manager.get_backend("x509keypair")


def _stored(store) -> str:
    ca = x509.generate_ca("c")
    return store.store_cert(ALICE, ca.certificate, ca.private_key, ca.passphrase)


def test_a_clusters_bundles_are_removed(store):
    row = make_cluster(ALICE)
    refs = {"ca_cert_ref": _stored(store), "magnum_cert_ref": _stored(store)}
    clusters.update(None, row.uuid, refs)
    assert cleanup.remove_certificates(make_admin_context(),
                                       clusters.get_by_uuid(None, row.uuid))
    for ref in refs.values():
        with pytest.raises(exception.CertificateNotFound):
            store.get_cert(ALICE, ref)
    assert orphans.count(None) == 0


def test_the_sweeper_drops_an_orphan_once_removed(store):
    row = make_cluster(ALICE)
    ref = _stored(store)
    orphans.record(cleanup.CERTIFICATE, ref, row, "the store was down", 3)
    assert cleanup.sweep() == 1
    assert orphans.count(None) == 0
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(ALICE, ref)


def test_the_back_off_grows_and_is_bounded():
    CONF.set_override("cleanup_backoff", 2.0, "conductor")
    assert cleanup.backoff(0) == datetime.timedelta(seconds=2)
    assert cleanup.backoff(3) == datetime.timedelta(seconds=16)
    assert cleanup.backoff(50) == datetime.timedelta(seconds=cleanup.MAX_BACKOFF)
    CONF.set_override("cleanup_backoff", 0, "conductor")
    assert cleanup.backoff(5) == datetime.timedelta(seconds=1)


# --- stacks a delete may have missed (issue 12, gap a) ------------------------------------
class _Driver:
    """The driver side of stack orphans: names, the create window, a stack that may exist."""

    def __init__(self) -> None:
        self.present = False
        self.deleted: list[tuple[str, str, str]] = []

    def stack_names(self, view):
        return {ng.uuid: f"{view.cluster.name}-{'main' if ng.is_default else ng.name}"
                for ng in view.nodegroups}

    def stack_create_window(self) -> float:
        return 120.0

    def remove_orphan_stack(self, session, name, project_id) -> bool:
        if self.present:
            self.deleted.append((session, name, project_id))
        return not self.present


@pytest.fixture
def driver(db, monkeypatch):
    fake = _Driver()
    monkeypatch.setattr(registry, "all_drivers", lambda: {"fake": fake})
    monkeypatch.setattr(cleanup.keystone, "admin_session", lambda: "service-session")
    CONF.set_override("cleanup_backoff", 0, "conductor")
    return fake


def _job(row, driver):
    # what the fake driver reads of a view: the cluster and its node groups
    return types.SimpleNamespace(uuid=row.uuid, cluster=row, driver=driver,
                                 view=lambda ngs: types.SimpleNamespace(cluster=row,
                                                                        nodegroups=ngs))


def test_an_unconfirmed_stack_create_the_delete_did_not_find_is_watched_once(driver):
    row = make_cluster(ALICE)
    ngs = nodegroups.list(None, {"cluster_id": row.uuid})
    create = records.add(None, row.uuid, states.OP_CREATE, {})
    records.effect(create.uuid, "stack_create", states.EFFECT_PENDING)
    before = db_api.server_now()
    assert cleanup.watch_unconfirmed_stacks(_job(row, driver), ngs, {}) == 1
    assert cleanup.watch_unconfirmed_stacks(_job(row, driver), ngs, {}) == 1  # a rerun
    [orphan] = orphans.list(None)
    assert (orphan.kind, orphan.ref, orphan.cluster_id) == ("stack", "c1-main", row.uuid)
    assert orphan.detail["driver"] == "fake"
    until = datetime.datetime.fromisoformat(orphan.detail["until"])
    assert before + datetime.timedelta(seconds=119) <= until <= \
        db_api.server_now() + datetime.timedelta(seconds=120)


def test_a_found_or_confirmed_stack_is_not_watched(driver):
    row = make_cluster(ALICE)
    ngs = nodegroups.list(None, {"cluster_id": row.uuid})
    create = records.add(None, row.uuid, states.OP_CREATE, {})
    records.effect(create.uuid, "stack_create", states.EFFECT_PENDING)
    found = {ng.uuid: "stack-id" for ng in ngs}
    assert cleanup.watch_unconfirmed_stacks(_job(row, driver), ngs, found) == 0
    records.effect(create.uuid, "stack_create", states.EFFECT_DONE, stack_id="stack-id")
    assert cleanup.watch_unconfirmed_stacks(_job(row, driver), ngs, {}) == 0
    assert orphans.count(None) == 0


def _due(orphan, **values) -> None:
    past = db_api.server_now() - datetime.timedelta(seconds=5)
    orphans.compare_and_swap(None, orphan.uuid, {}, {"next_attempt_at": past, **values})


def test_the_sweeper_deletes_a_stack_that_appears_and_waits_out_the_create_window(driver):
    row = make_cluster(ALICE)
    until = db_api.server_now() + datetime.timedelta(seconds=600)
    orphans.record(cleanup.STACK, "c1-main", row, "watching", 0,
                   detail={"driver": "fake", "until": until.isoformat()})
    driver.present = True  # the create landed after the delete
    assert cleanup.sweep() == 0
    assert driver.deleted == [("service-session", "c1-main", ALICE.project_id)]
    [orphan] = orphans.list(None)
    assert "its delete is sent" in orphan.last_error and orphan.attempts == 1
    driver.present = False  # gone, but a create could still land: watched on
    _due(orphan)
    assert cleanup.sweep() == 0
    [orphan] = orphans.list(None)
    assert "could still land until" in orphan.last_error
    _due(orphan, detail={"driver": "fake", "until": db_api.server_now().isoformat()})
    assert cleanup.sweep() == 1
    assert orphans.count(None) == 0


def test_a_stack_orphan_is_looked_at_every_sweep_however_often_it_failed(driver):
    CONF.set_override("cleanup_backoff", 60, "conductor")
    CONF.set_override("orphan_sweep_interval", 30, "conductor")
    row = make_cluster(ALICE)
    orphans.record(cleanup.STACK, "c1-main", row, "watching", 10,
                   detail={"driver": "fake", "until": db_api.server_now().isoformat()})
    driver.present = True
    assert cleanup.sweep() == 0
    [orphan] = orphans.list(None)
    assert orphan.next_attempt_at <= db_api.server_now() + datetime.timedelta(seconds=31)


# --- every trustee the cluster had (issue 12, gap e) ---------------------------------------
def test_the_trustees_and_trusts_of_every_record_are_found(db, monkeypatch):
    """The row's pair, a rotation's retired pair, a killed rotation's trustee (by name)
    and one only Keystone knows by the cluster's name, with the trusts to each."""
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, {"trustee_user_id": "u-now", "trust_id": "t-now"})
    row = clusters.get_by_uuid(None, row.uuid)
    done = records.add(None, row.uuid, states.OP_ROTATE_CREDENTIAL, {})
    records.effect(done.uuid, "trust", states.EFFECT_DONE, trustee_user_id="u-now",
                   trust_id="t-now", retiring={"trustee_user_id": "u-old", "trust_id": "t-old"})
    killed = records.add(None, row.uuid, states.OP_ROTATE_CREDENTIAL, {})
    records.effect(killed.uuid, "trust", states.EFFECT_PENDING, trustee_username="name-killed")
    monkeypatch.setattr(cleanup.trust, "find_trustee",
                        lambda name: {"name-killed": "u-killed"}.get(name))
    monkeypatch.setattr(cleanup.trust, "trustees_of", lambda cluster: ["u-now", "u-failed"])
    monkeypatch.setattr(cleanup.trust, "trusts_to",
                        lambda user: {"u-killed": ["t-killed"], "u-now": ["t-now"]}.get(user, []))
    trustees, trusts = cleanup._identities(row)
    assert trustees == {"u-now", "u-old", "u-killed", "u-failed"}
    assert set(trusts) == {"t-now", "t-old", "t-killed"}
    assert trusts["t-now"] is row  # the row's trust is deleted as the row's (its trustee)


def test_keystone_failing_the_look_ups_leaves_the_recorded_pairs(db, monkeypatch):
    row = make_cluster(ALICE)
    clusters.update(None, row.uuid, {"trustee_user_id": "u-now", "trust_id": "t-now"})
    row = clusters.get_by_uuid(None, row.uuid)

    def down(*args):
        raise ConnectionError("Keystone is down")

    for name in ("find_trustee", "trustees_of", "trusts_to"):
        monkeypatch.setattr(cleanup.trust, name, down)
    assert cleanup._identities(row) == ({"u-now"}, {"t-now": row})
