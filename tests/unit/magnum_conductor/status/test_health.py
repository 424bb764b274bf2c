"""The health poller: each owned cluster's monitor answer saved once, failures as UNKNOWN
with the reason, other conductors' clusters left alone (SQLite, the real drivers)."""

from __future__ import annotations

from magnum_common import states
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_conductor.status import health
from magnum_conductor.status.hashring import HashRing, Partition
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def _mine() -> Partition:
    return Partition(HashRing(["me"]), "me")


def _nobodys() -> Partition:
    return Partition(HashRing(["other"]), "me")


def _cluster(name: str, template_uuid: str | None, **values):
    row = make_cluster(ALICE, name)
    clusters.update(None, row.uuid, {"status": states.CREATE_COMPLETE,
                                     "cluster_template_id": template_uuid, **values})
    return clusters.get_by_uuid(None, row.uuid)


def test_answers_are_saved_once_and_failures_are_unknown(db):
    template = cluster_templates.create(ALICE, {
        "name": "t", "project_id": "p1", "coe": "kubernetes", "server_type": "vm",
        "cluster_distro": "fedora-coreos", "tls_disabled": True})
    waiting = _cluster("no-api-yet", template.uuid)
    healed = _cluster("healed", template.uuid, labels={
        "auto_healing_enabled": "true", "auto_healing_controller": "magnum-auto-healer"})
    orphan = _cluster("orphan", "8e7a8f6e-0c7e-4c5d-9d9e-8f1d0a3c1b2a")
    assert health.HealthPoller(_nobodys).run_once() == 0
    assert health.HealthPoller(_mine).run_once() == 2
    rows = {r.name: clusters.get_by_uuid(None, r.uuid) for r in (waiting, healed, orphan)}
    assert (rows["no-api-yet"].health_status, rows["no-api-yet"].health_status_reason) == (
        states.UNKNOWN, {"api": "the cluster has no API address yet"})
    assert rows["orphan"].health_status == states.UNKNOWN
    assert rows["orphan"].health_status_reason["error"].startswith("health poll failed")
    assert rows["healed"].health_status is None  # the auto-healer watches it instead
    assert health.HealthPoller(_mine).run_once() == 0  # unchanged answers write nothing


def test_a_monitor_answering_outside_the_vocabulary_is_unknown(db, monkeypatch):
    """A driver (the seam the registry hands out) whose monitor says something else."""
    class Odd:
        def poll_health(self):
            return "SORT_OF_OK", {}

    class Driver:
        def get_monitor(self, res, view):
            return Odd()

    from magnum_common.drivers import registry

    template = cluster_templates.create(ALICE, {"name": "t", "project_id": "p1"})
    row = _cluster("odd", template.uuid)
    monkeypatch.setattr(registry, "get_driver_for_template", lambda template: Driver())
    assert health.poll_cluster(row) == (
        states.UNKNOWN, {"error": "monitor returned unknown status 'SORT_OF_OK'"})
