"""Orphans on every backend: recorded due now, claimed by one sweeper at a time, put back
with a back-off after a failed attempt, removed once done."""

from __future__ import annotations

import datetime

from magnum_common.db.orphans import orphans
from tests.unit.magnum_common.db.support import ALICE, make_cluster


def test_a_leftover_is_claimed_once_retried_later_and_removed(db_any):
    cluster = make_cluster(ALICE)
    orphan = orphans.record("trust", "trust-1", cluster, "Keystone said 503" * 500, 3)
    assert (orphan.cluster_id, orphan.project_id, orphan.attempts) == (cluster.uuid, "p1", 3)
    assert len(orphan.last_error) == 4000
    (claimed,) = orphans.claim_due(hold_seconds=60)
    assert claimed.uuid == orphan.uuid
    assert orphans.claim_due(hold_seconds=60) == []  # held away from the other sweepers
    orphans.failed_again(orphan.uuid, "still 503", datetime.timedelta(hours=1))
    again = orphans.get_by_uuid(None, orphan.uuid)
    assert (again.attempts, again.last_error) == (4, "still 503")
    assert orphans.claim_due(hold_seconds=60) == []
    orphans.failed_again(orphan.uuid, "try now", datetime.timedelta(seconds=-5))
    assert [o.uuid for o in orphans.claim_due(hold_seconds=60)] == [orphan.uuid]
    orphans.remove(orphan.uuid)
    assert orphans.count(None) == 0
    orphans.remove(orphan.uuid)  # removing twice is fine
