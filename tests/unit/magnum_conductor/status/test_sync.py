"""The status sync of one conductor process (SQLite, real leases and service rows; the
stacks themselves are asked of the local cloud in tests/localcloud/conductor): it polls only
its share of the ring of live conductors, never a cluster whose operation is still recorded,
and writes nothing to one whose lease another conductor holds; a cluster in progress past
its timeout is failed with its record and its node groups in progress; one whose template
names no installed driver is left as it is and counted as an error."""

from __future__ import annotations

import datetime

import pytest

from magnum_common import states
from magnum_common.db import api as db_api
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations as records
from magnum_common.db.services import magnum_services
from magnum_conductor.conf import BINARY
from magnum_conductor.engine.executor import Executor
from magnum_conductor.status.sync import StatusSync
from tests.unit.magnum_common.db.support import ALICE, make_cluster


@pytest.fixture
def sync(db):
    return StatusSync(Executor("cond-a"))


def _join(sync: StatusSync) -> None:
    magnum_services.heartbeat("host-a", BINARY)
    magnum_services.process_heartbeat(sync.identity, "host-a", BINARY)


def _in_progress(name: str, started_minutes_ago: float, create_timeout: int = 5,
                 **values) -> str:
    """A cluster whose create was sent to Heat (its operation ended, its record runs on)."""
    row = make_cluster(ALICE, name)
    records.start(row.operation_args["operation_id"])
    assert clusters.clear_operation(row.uuid, states.OP_CREATE)
    started = db_api.now() - datetime.timedelta(minutes=started_minutes_ago)
    clusters.compare_and_swap(None, row.uuid, {}, {"operation_at": started,
                                                  "create_timeout": create_timeout, **values})
    for ng in nodegroups.list(None, {"cluster_id": row.uuid}):
        nodegroups.compare_and_swap(None, ng.uuid, {}, {"status": states.CREATE_IN_PROGRESS})
    return row.uuid


def test_a_conductor_outside_the_ring_polls_nothing(sync):
    _in_progress("late", 60)
    assert sync.run_once().polled == 0
    _join(sync)
    assert sync.partition().owns("any-cluster")  # alone in the ring, it owns everything


def test_a_cluster_past_its_timeout_fails_with_its_record_and_groups(sync):
    _join(sync)
    late = _in_progress("late", 60)
    recent = _in_progress("recent", 1)
    stats = sync.run_once()
    assert sorted(stats.polled_uuids) == sorted([late, recent])
    assert (stats.changed, stats.errors) == (1, 0)
    row = clusters.get_by_uuid(None, late)
    assert row.status == states.CREATE_FAILED
    assert row.status_reason.startswith("Timed out: the cluster's stacks were not created "
                                        "within 5 minutes")
    assert {ng.status for ng in nodegroups.list(None, {"cluster_id": late})} == {
        states.CREATE_FAILED}
    (record,) = records.list_in_cluster(None, late)
    assert (record.state, record.result_reason) == (states.OPERATION_FAILED, row.status_reason)
    assert clusters.get_by_uuid(None, recent).status == states.CREATE_IN_PROGRESS
    assert sync.run_once().changed == 0  # nothing left to write


def test_recorded_or_leased_clusters_are_left_to_their_owner(sync):
    _join(sync)
    recorded = make_cluster(ALICE, "recorded")  # its create still recorded: the handlers'
    leased = _in_progress("leased", 60)
    assert clusters.acquire_lock(leased, "cond-b", 60)
    stats = sync.run_once()
    assert (stats.polled_uuids, stats.changed) == ([leased], 0)  # timed out, but not ours
    assert clusters.get_by_uuid(None, recorded.uuid).status == states.CREATE_IN_PROGRESS
    assert clusters.get_by_uuid(None, leased).status == states.CREATE_IN_PROGRESS


def test_a_stack_whose_template_names_no_installed_driver_is_left_as_it_is(sync):
    _join(sync)
    template = cluster_templates.create(None, {
        "name": "gone", "project_id": ALICE.project_id, "coe": "kubernetes",
        "image_id": "fcos", "server_type": "vm", "cluster_distro": "fedora-coreos",
        "driver": "uninstalled_driver"})
    uuid = _in_progress("orphaned", 60, cluster_template_id=template.uuid,
                        stack_id="b1d0a0c4-0000-4000-8000-000000000001")
    stats = sync.run_once()
    assert (stats.polled, stats.changed, stats.errors) == (1, 0, 1)
    assert clusters.get_by_uuid(None, uuid).status == states.CREATE_IN_PROGRESS
