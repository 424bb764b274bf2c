"""The operation record's view: no credential, no requester context, valid per the
document."""

from __future__ import annotations

import json

from jsonschema import Draft202012Validator
from oslo_config import cfg

from magnum_api.schemas import cluster_operation
from magnum_common import crypto, states
from magnum_common.context import RequestContext
from magnum_common.db.operations import operations
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


def test_the_view_hides_who_asked_and_their_token(db):
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    row = make_cluster(ALICE)
    requester = RequestContext(user_id="alice", project_id="p1", auth_token="tok-secret")
    record = operations.add(ALICE, row.uuid, states.OP_RESIZE,
                            {"node_count": 3, **requester.record(),
                             "previous_nodegroup": {"status": "CREATE_COMPLETE"}})
    body = cluster_operation.view(operations.get_in_cluster(None, row.uuid, record.uuid),
                                  "http://127.0.0.1:9511")
    assert body["arguments"] == {"node_count": 3}
    assert "tok-secret" not in json.dumps(body) and body["kind"] == states.OP_RESIZE
    assert body["links"][0]["href"].endswith(f"/v1/clusters/{row.uuid}/operations/"
                                             f"{record.uuid}")
    assert body["accepted_at"].endswith("+00:00") and body["finished_at"] is None
    assert Draft202012Validator(cluster_operation.VIEW.schema()).is_valid(body)
