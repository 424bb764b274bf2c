"""Node-group views: summary and full, the label difference against the cluster's, valid
per the document."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from magnum_api.schemas import nodegroup
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from tests.unit.magnum_common.db.support import ALICE, make_cluster

BASE = "http://127.0.0.1:9511"


def test_views_of_a_stored_group(db):
    row = make_cluster(ALICE)
    worker = nodegroups.get_in_cluster(None, row.uuid, "default-worker")
    nodegroups.update(None, worker.uuid, {"labels": {"a": "1", "b": "2"},
                                          "node_labels": {"tier": "web"}})
    worker = nodegroups.get_by_uuid(None, worker.uuid)
    full = nodegroup.full(nodegroup.row_values(worker), {"a": "0", "c": "3"}, BASE)
    assert (full["labels_overridden"], full["labels_added"], full["labels_skipped"]) == (
        {"a": "0"}, {"b": "2"}, {"c": "3"})
    assert full["merge_labels"] is False and full["node_labels"] == {"tier": "web"}
    assert full["links"][0]["href"] == (f"{BASE}/v1/clusters/{row.uuid}/nodegroups/"
                                        f"{worker.uuid}")
    assert Draft202012Validator(nodegroup.FULL.schema()).is_valid(full)
    summary = nodegroup.summary(worker)
    assert set(summary) == {*nodegroup.SUMMARY_FIELDS, "merge_labels"}
    assert Draft202012Validator(nodegroup.SUMMARY.schema()).is_valid(summary)


def test_an_assembled_group_shows_only_what_it_has(db):
    row = make_cluster(ALICE)
    values = {"uuid": "8e7a8f6e-0c7e-4c5d-9d9e-8f1d0a3c1b2a", "name": "gpu",
              "cluster_id": row.uuid, "project_id": "p1", "role": "worker",
              "node_count": 2, "labels": None, "flavor_id": "m1", "image_id": "i",
              "min_node_count": 0, "max_node_count": None, "node_labels": {},
              "node_taints": []}
    accepted = nodegroup.full(values, clusters.get_by_uuid(None, row.uuid).labels, BASE)
    assert "created_at" not in accepted and accepted["labels"] == {}
    assert Draft202012Validator(nodegroup.ACCEPTED.schema()).is_valid(accepted)
