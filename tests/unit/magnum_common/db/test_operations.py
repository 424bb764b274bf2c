"""The operation records: the per-cluster queue and what cannot start."""

from __future__ import annotations

import datetime

from magnum_common import states
from magnum_common.db import api
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def test_queue_promotes_the_oldest_and_fails_what_cannot_start(db_any):
    """A queue nobody moved on is found (the reconciler's query) and started in order; a
    record whose gate the cluster's status fails is failed and its node group put back."""
    cluster = make_cluster(ALICE)
    clusters.clear_operation(cluster.uuid, states.OP_CREATE)
    operations.finish(cluster.operation_args["operation_id"], states.OPERATION_SUCCEEDED)
    clusters.compare_and_swap(None, cluster.uuid, {}, {"status": states.UPDATE_FAILED})
    worker = nodegroups.get_in_cluster(None, cluster.uuid, "default-worker")
    upgrade = operations.add(ALICE, cluster.uuid, states.OP_UPGRADE,
                             {"previous_nodegroup": {"status": "CREATE_COMPLETE"}},
                             worker.uuid)
    nodegroups.compare_and_swap(None, worker.uuid, {}, {"status": states.UPDATE_IN_PROGRESS})
    resize = operations.add(ALICE, cluster.uuid, states.OP_RESIZE, {"node_count": 3},
                            worker.uuid)
    later = api.now() + datetime.timedelta(seconds=1)
    assert operations.stalled(later) == [cluster.uuid]
    assert operations.queued_targets(cluster.uuid) == {worker.uuid}
    assert operations.promote(cluster.uuid).uuid == resize.uuid
    row = clusters.get_by_uuid(None, cluster.uuid)
    assert (row.operation, row.status) == (states.OP_RESIZE, states.UPDATE_IN_PROGRESS)
    assert row.operation_args["previous_status"] == states.UPDATE_FAILED
    refused = operations.get_in_cluster(None, cluster.uuid, upgrade.uuid)
    assert refused.state == states.OPERATION_FAILED and "UPDATE_FAILED" in \
        refused.result_reason
    assert nodegroups.get_by_uuid(None, worker.uuid).status == "CREATE_COMPLETE"
    assert operations.stalled(later) == [] and operations.promote(cluster.uuid) is None


def test_supersede_ends_open_records_only_all_or_nothing(db_any):
    """A DELETE supersedes the open records it read; when one of them has ended meanwhile
    the caller is told (it rolls its transaction back and looks again)."""
    cluster = make_cluster(ALICE)
    create = cluster.operation_args["operation_id"]
    operations.start(create)
    queued = operations.add(ALICE, cluster.uuid, states.OP_RESIZE, {"node_count": 3})
    assert operations.supersede(None, [create, queued.uuid], "Superseded by delete x.")
    for uuid in (create, queued.uuid):
        record = operations.get_in_cluster(None, cluster.uuid, uuid)
        assert (record.state, record.result_reason) == (states.OPERATION_SUPERSEDED,
                                                        "Superseded by delete x.")
        assert record.started_at and record.finished_at
    assert operations.open_of(cluster.uuid) == []
    done = operations.add(ALICE, cluster.uuid, states.OP_UPDATE, {},
                          state=states.OPERATION_SUCCEEDED)
    assert not operations.supersede(None, [done.uuid], "late")
    assert operations.get_in_cluster(None, cluster.uuid, done.uuid).state == \
        states.OPERATION_SUCCEEDED


def test_progress_is_timed_by_the_server_and_a_moved_record_is_not_superseded(db_any):
    """note() and effect() time a running record by the database server's clock; a DELETE
    that read the record supersedes it only while it has not moved since (a hung delete
    that made progress meanwhile keeps running)."""
    cluster = make_cluster(ALICE)
    record = cluster.operation_args["operation_id"]
    operations.start(record)
    assert operations.note(record, "step auth")
    read = operations.get_by_uuid(None, record)
    server = api.server_now()
    assert server - datetime.timedelta(seconds=5) <= read.updated_at <= server
    assert operations.note_running(cluster.uuid, "step trust_delete") == 1
    operations.effect(record, "stack_delete", states.EFFECT_PENDING)
    moved = operations.get_by_uuid(None, record)
    assert moved.progress == "step trust_delete" and moved.updated_at >= read.updated_at
    operations.update(None, record, {"updated_at": read.updated_at
                                     - datetime.timedelta(seconds=10)})
    stale = operations.get_by_uuid(None, record)
    assert not operations.supersede(None, [record], "late", {record: read.updated_at})
    assert operations.supersede(None, [record], "Superseded by delete y.",
                                {record: stale.updated_at})
    assert operations.get_by_uuid(None, record).state == states.OPERATION_SUPERSEDED
