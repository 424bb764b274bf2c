"""The reconciler takes over what nobody works on: a recorded operation older than the
grace whose lease is free is replayed (here one no handler knows, which the replay clears
and fails); one another conductor holds is left to it."""

from __future__ import annotations

import datetime
import time

from oslo_config import cfg

from magnum_common import states
from magnum_common.db import api as db_api
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations as records
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.reconciler import Reconciler
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


def _orphan(name: str) -> tuple[str, str]:
    row = make_cluster(ALICE, name)
    past = db_api.now() - datetime.timedelta(minutes=5)
    clusters.compare_and_swap(None, row.uuid, {}, {"operation": "cluster_frobnicate",
                                                  "operation_at": past})
    return row.uuid, row.operation_args["operation_id"]


def test_an_orphaned_operation_is_replayed_and_a_held_one_left_alone(db):
    CONF.set_override("pending_grace", 0, "conductor")
    orphan, record = _orphan("orphan")
    held, _ = _orphan("held")
    assert clusters.acquire_lock(held, "cond-b", 60)
    reconciler = Reconciler(Executor("cond-a"))
    try:
        assert reconciler.run_once() == [orphan]
        deadline = time.monotonic() + 30
        while (row := clusters.get_by_uuid(None, orphan)).operation is not None \
                or row.lock_owner is not None:  # the replay ends, then frees the lease
            assert time.monotonic() < deadline, "the replay never ran"
            time.sleep(0.05)
    finally:
        reconciler.stop()
    done = records.get_by_uuid(None, record)
    assert done.state == states.OPERATION_FAILED
    assert "Unknown operation 'cluster_frobnicate'" in done.result_reason
    assert clusters.get_by_uuid(None, held).operation == "cluster_frobnicate"
    assert clusters.get_by_uuid(None, orphan).lock_owner is None
