"""The node-group handlers as a conductor runs them (SQLite, real leases): the group moves
to its in-progress status (an update's new values written), and when the identity cannot
authenticate (a delete falls back to the service's identity), the group fails with the
reason and the cluster with it; the delete of a group that is gone already names it by its
UUID and fails cleanly."""

from __future__ import annotations

import pytest

from magnum_common import exception, states
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.db.operations import operations as records
from tests.unit.magnum_common.db.support import ALICE
from tests.unit.magnum_conductor.engine.handlers.support import created, record, run

NO_IDENTITY = "no trust and no requester context"
#: A delete falls back to the service's identity, unconfigured here.
NO_SERVICE = "[keystone_auth] is incomplete"


def _group(cluster_uuid: str, status: str = states.CREATE_IN_PROGRESS):
    """A non-default node group, as the API inserts it with its create."""
    return nodegroups.create(None, {"name": "gpu", "cluster_id": cluster_uuid,
                                    "project_id": ALICE.project_id, "role": "worker",
                                    "node_count": 1, "is_default": False, "status": status})


@pytest.mark.parametrize(("operation", "failed", "values", "reason"), [
    (states.OP_NODEGROUP_CREATE, states.CREATE_FAILED, None, NO_IDENTITY),
    (states.OP_NODEGROUP_UPDATE, states.UPDATE_FAILED, {"max_node_count": 4}, NO_IDENTITY),
    (states.OP_NODEGROUP_DELETE, states.DELETE_FAILED, None, NO_SERVICE),
])
def test_a_group_whose_identity_cannot_authenticate_fails_with_the_reason(
        db, operation, failed, values, reason):
    row = created()
    group = _group(row.uuid, states.CREATE_COMPLETE if values else states.CREATE_IN_PROGRESS)
    args = {"nodegroup_uuid": group.uuid, **({"values": values} if values else {})}
    done = record(row.uuid, operation, args, group.uuid)
    worker = nodegroups.get_in_cluster(None, row.uuid, "default-worker")
    with pytest.raises(exception.AuthenticationFailed):
        run(row.uuid)
    after = nodegroups.get_by_uuid(None, group.uuid)
    assert after.status == failed and reason in after.status_reason
    if values:
        assert after.max_node_count == 4  # written before the stack update was asked for
    cluster = clusters.get_by_uuid(None, row.uuid)
    assert (cluster.status, cluster.operation) == (states.UPDATE_FAILED, None)
    assert records.get_by_uuid(None, done).state == states.OPERATION_FAILED
    assert nodegroups.get_by_uuid(None, worker.uuid).updated_at == worker.updated_at  # untouched


def test_the_delete_of_a_group_gone_already_names_it_and_fails_cleanly(db):
    row = created()
    group = _group(row.uuid)
    nodegroups.destroy(None, group.uuid)
    done = record(row.uuid, states.OP_NODEGROUP_DELETE, {"nodegroup_uuid": group.uuid})
    with pytest.raises(exception.NodeGroupNotFound):
        run(row.uuid)
    cluster = clusters.get_by_uuid(None, row.uuid)
    assert (cluster.status, cluster.operation) == (states.UPDATE_FAILED, None)
    failed = records.get_by_uuid(None, done)
    assert failed.state == states.OPERATION_FAILED and group.uuid in failed.result_reason
