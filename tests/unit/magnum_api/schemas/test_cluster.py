"""Cluster views and bodies: totals over node groups, the microversion's id field, faults
of failed clusters, and every view valid against the schema the document declares."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from magnum_api import microversion
from magnum_api.schemas import cluster
from magnum_common import exception, states
from magnum_common.db.clusters import clusters
from tests.unit.magnum_common.db.support import ALICE, make_cluster

BASE = "http://127.0.0.1:9511"


def _row_and_groups(status: str = states.CREATE_COMPLETE):
    row = make_cluster(ALICE, workers=3)
    clusters.update(None, row.uuid, {"status": status, "labels": {"a": "1", "b": "2"},
                                     "stack_id": "stack-1"})
    row = clusters.get_by_uuid(None, row.uuid)
    groups = clusters.nodegroups_of(None, [row.uuid])[row.uuid]
    return row, groups


def _valid(view, body) -> None:
    errors = list(Draft202012Validator(view.schema()).iter_errors(body))
    assert not errors, [e.message for e in errors]


def test_views_sum_the_node_groups_and_name_the_stack_by_microversion(db):
    row, groups = _row_and_groups()
    old = cluster.summary(row.as_dict(), groups, BASE, microversion.Version(1, 12))
    new = cluster.summary(row.as_dict(), groups, BASE, microversion.MAX_VERSION)
    assert (old["node_count"], old["master_count"]) == (3, 1)
    assert old["stack_id"] == "stack-1" and "cluster_id" not in old
    assert new["cluster_id"] == "stack-1" and "stack_id" not in new
    _valid(cluster.SUMMARY, old)
    detail = cluster.detail(row.as_dict(), groups, {"a": "0", "c": "3"}, BASE,
                            microversion.MAX_VERSION)
    assert detail["labels_overridden"] == {"a": "0"} and detail["labels_skipped"] == {
        "c": "3"}
    assert detail["created_at"].endswith("+00:00") and "faults" not in detail
    _valid(cluster.DETAIL, detail)


def test_a_failed_cluster_shows_its_failed_groups_reasons(db):
    row, groups = _row_and_groups(states.CREATE_FAILED)
    worker = next(g for g in groups if g.role == "worker")
    worker.status, worker.status_reason = states.CREATE_FAILED, "quota exceeded"
    show = cluster.detail(row.as_dict(), groups, None, BASE, microversion.MAX_VERSION,
                          show=True)
    assert show["faults"] == {"default-worker": "quota exceeded"}
    _valid(cluster.SHOW, show)


def test_the_patch_document_takes_the_default_worker_count(db):
    row, groups = _row_and_groups()
    doc = cluster.patch_document(row, groups)
    assert (doc["node_count"], doc["master_count"], doc["labels"]) == (
        3, 1, {"a": "1", "b": "2"})
    assert cluster.patch_document(row, [g for g in groups if g.role == "master"])[
        "node_count"] == 0


def test_resize_and_upgrade_bodies():
    assert cluster.ResizeRequest.parse({"node_count": "2", "nodes_to_remove": []})[
        "node_count"] == 2
    with pytest.raises(exception.Invalid, match="Mandatory field missing"):
        cluster.ResizeRequest.parse({})
    with pytest.raises(exception.Invalid, match="Mandatory field missing"):
        cluster.UpgradeRequest.parse({"max_batch_size": 1})
    with pytest.raises(exception.Invalid, match="Unknown attribute"):
        cluster.ClusterPost.parse({"name": "c", "uuid_": "x"})
    assert cluster.ClusterPost.parse({"name": "", "cluster_template_id": "t"}) == {
        "name": None, "cluster_template_id": "t"}  # gophercloud sends a blank name
