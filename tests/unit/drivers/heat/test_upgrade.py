"""What an upgrade changes and refuses: versions come from the new template, the cluster's
own settings stay; no downgrade; no replacing a lone master that keeps etcd on its disk."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from drivers.heat import upgrade
from magnum_common import exception
from magnum_common.drivers.view import ClusterView, TemplateRow
from tests.unit.drivers import support


def test_versions_come_from_the_new_template_and_the_clusters_own_settings_stay():
    cluster = SimpleNamespace(labels={"kube_tag": "v1.29.0", "containerd_version": "1.7.0",
                                      "flannel_backend": "host-gw", "mine": "kept"})
    new = SimpleNamespace(labels={"kube_tag": "v1.30.2", "containerd_version": "1.7.24",
                                  "flannel_backend": "vxlan", "new_label": "added"})

    assert upgrade.upgraded_labels(cluster, new) == {
        "kube_tag": "v1.30.2", "containerd_version": "1.7.24",  # versions: the template's
        "flannel_backend": "host-gw", "mine": "kept",  # the cluster's choices stay
        "new_label": "added",  # what it did not set, the template gives
    }
    assert cluster.labels["kube_tag"] == "v1.29.0"  # the row is not changed


def test_a_downgrade_is_refused_and_a_first_version_or_an_upgrade_pass():
    upgrade.check_version(None, "v1.30.0")
    upgrade.check_version("v1.29.9", "v1.30.0")
    upgrade.check_version("v1.30.0", "v1.30.0")
    with pytest.raises(exception.InvalidParameterValue, match="from v1.30.1 to v1.30.0"):
        upgrade.check_version("v1.30.1", "v1.30.0")


@pytest.mark.parametrize("current, expected", [(None, 1), ("", 1), ("3", 4), (7, 8),
                                               ("garbage", 1)])
def test_the_node_generation_counts_up_from_what_heat_returns(current, expected):
    assert upgrade.next_generation(current) == expected


def test_the_upgrade_target_rolls_the_default_groups_or_one_extra_group():
    ct = support.template(labels={"kube_tag": "v1.29.0"})
    cl = support.cluster(ct)
    ngs = support.default_nodegroups(cl) + [support.nodegroup(cl, "gpu", "worker", 1, False)]
    new = TemplateRow.of(support.template(labels={"kube_tag": "v1.30.2"}))
    view = ClusterView.of(cl, ct, ngs)

    target = upgrade.target(view, new, view.master)
    assert target.template == new and target.cluster.labels["kube_tag"] == "v1.30.2"
    assert [ng.labels["kube_tag"] for ng in target.nodegroups] == [
        "v1.30.2", "v1.30.2", "v1.29.0"]
    extra = upgrade.target(view, new, view.nodegroups[2])
    assert [ng.labels["kube_tag"] for ng in extra.nodegroups] == [
        "v1.29.0", "v1.29.0", "v1.30.2"]
    assert view.cluster.labels["kube_tag"] == "v1.29.0"  # the view itself stays as read

