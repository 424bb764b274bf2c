"""The driver's view of a cluster: a snapshot of the rows that shares nothing with them,
holds no secret, and merges the labels as the drivers resolve them."""

from __future__ import annotations

import dataclasses

import pytest

from magnum_common import exception
from magnum_common.drivers.view import ClusterRow, ClusterView, NodeGroupRow, TemplateRow
from tests.unit.drivers import support


def _rows():
    ct = support.template(labels={"kube_tag": "v1.30.4", "flannel_backend": "vxlan"})
    cl = support.cluster(ct, labels={"kube_tag": "v1.31.1", "empty": None},
                         trustee_password="sealed", ca_cert_ref="ref")
    return cl, ct, support.default_nodegroups(cl, masters=3, workers=2)


def test_the_view_holds_the_rows_values_and_no_secret():
    cl, ct, ngs = _rows()
    view = ClusterView.of(cl, ct, ngs)
    assert view.uuid == cl.uuid and view.cluster.name == cl.name
    assert view.template.image_id == "fcos" and view.template.tls_disabled is False
    assert [ng.uuid for ng in view.nodegroups] == [ng.uuid for ng in ngs]
    assert (view.master.node_count, view.worker.node_count) == (3, 2)
    assert view.nodegroup(ngs[1].uuid).name == "default-worker"
    names = {f.name for f in dataclasses.fields(ClusterRow)}
    assert not names & {"trustee_password", "trust_id", "ca_cert_ref", "lock_owner",
                        "operation_args"}


def test_the_view_is_read_only_and_shares_nothing_with_the_rows():
    cl, ct, ngs = _rows()
    view = ClusterView.of(cl, ct, ngs)
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.cluster.stack_id = "changed"  # type: ignore[misc]
    view.cluster.labels["kube_tag"] = "v9.9.9"
    view.nodegroups[0].labels["x"] = "y"
    assert cl.labels["kube_tag"] == "v1.31.1" and "x" not in ngs[0].labels
    cl.stack_id = "later"
    assert view.cluster.stack_id is None


def test_labels_are_the_templates_overlaid_by_the_clusters():
    cl, ct, ngs = _rows()
    view = ClusterView.of(cl, ct, ngs)
    assert view.labels == {"kube_tag": "v1.31.1", "flannel_backend": "vxlan"}
    target = dataclasses.replace(view, cluster=dataclasses.replace(
        view.cluster, labels={"kube_tag": "v1.32.1"}))
    assert target.labels["kube_tag"] == "v1.32.1" and view.labels["kube_tag"] == "v1.31.1"


def test_a_view_of_views_is_the_same_view_and_a_missing_group_is_not_found():
    cl, ct, ngs = _rows()
    view = ClusterView.of(cl, ct, ngs)
    again = ClusterView.of(view.cluster, view.template, view.nodegroups)
    assert again == view
    assert TemplateRow.of(ct) == view.template and NodeGroupRow.of(ngs[0]) == view.master
    with pytest.raises(exception.NodeGroupNotFound):
        view.nodegroup("no-such-group")
    with pytest.raises(exception.NodeGroupNotFound):
        _ = ClusterView.of(cl, ct, []).worker
