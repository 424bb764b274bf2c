"""The node group repository: lookups within a cluster, names unique per cluster."""

from __future__ import annotations

import pytest

from magnum_common import exception
from magnum_common.db.nodegroups import nodegroups
from tests.unit.magnum_common.db.support import ALICE, BOB, make_cluster


def test_nodegroup_lookup_and_unique_name(db_any):
    cluster = make_cluster(ALICE)
    worker = nodegroups.get_in_cluster(ALICE, cluster.uuid, "default-worker")
    assert nodegroups.get_in_cluster(ALICE, cluster.uuid, worker.uuid).name == "default-worker"
    with pytest.raises(exception.NodeGroupAlreadyExists):
        nodegroups.create(ALICE, {"name": "default-worker", "cluster_id": cluster.uuid,
                                  "project_id": "p1"})
    with pytest.raises(exception.NodeGroupNotFound):
        nodegroups.get_in_cluster(BOB, cluster.uuid, "default-worker")
    assert nodegroups.destroy_all_of(cluster.uuid) == 2
