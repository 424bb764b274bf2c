"""The cluster shape every driver, the API and the conductor agree on: the default node
groups (built and found again only here) and the boot volume size."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from oslo_config import cfg

from magnum_common import exception, states
from magnum_common.drivers import settings

CLUSTER = {"labels": {"min_node_count": "2", "max_node_count": "9", "kube_tag": "v1.30"},
           "docker_volume_size": 20, "master_flavor_id": "m1.large", "flavor_id": "m1.small"}


def test_a_new_cluster_gets_one_default_master_and_one_default_worker_group():
    master, worker = settings.default_nodegroups("p1", CLUSTER, "img", 3, 5)

    assert (master["name"], master["role"], master["node_count"], master["flavor_id"]) == (
        "default-master", "master", 3, "m1.large")
    assert (worker["name"], worker["role"], worker["node_count"], worker["flavor_id"]) == (
        "default-worker", "worker", 5, "m1.small")
    for group in (master, worker):
        assert group["is_default"] and group["status"] == states.CREATE_IN_PROGRESS
        assert (group["project_id"], group["image_id"], group["docker_volume_size"]) == (
            "p1", "img", 20)
        assert group["labels"] == CLUSTER["labels"]
        assert group["labels"] is not CLUSTER["labels"]  # a group's labels change alone
    assert (master["min_node_count"], master["max_node_count"]) == (1, None)
    assert (worker["min_node_count"], worker["max_node_count"]) == (2, 9)


def test_the_worker_range_defaults_to_zero_and_unbounded_and_must_be_integers():
    _, worker = settings.default_nodegroups(None, {**CLUSTER, "labels": None}, None, 1, 1)
    assert (worker["min_node_count"], worker["max_node_count"]) == (0, None)

    with pytest.raises(exception.InvalidParameterValue, match="max_node_count"):
        settings.default_nodegroups(None, {**CLUSTER, "labels": {"max_node_count": "x"}},
                                    None, 1, 1)


def _group(name, role, is_default=True):
    return SimpleNamespace(name=name, role=role, is_default=is_default)


def test_the_default_groups_are_found_among_the_rows_by_role_and_default_flag():
    extra = _group("extra", "worker", is_default=False)
    master, worker = _group("m", "master"), _group("w", None)  # no role: workers
    rows = [extra, master, worker]

    assert settings.default_master(rows) is master
    assert settings.default_worker(rows) is worker
    assert settings.is_master(master) and not settings.is_master(worker)
    with pytest.raises(exception.NodeGroupNotFound, match="default-worker"):
        settings.default_worker([extra, master])
    with pytest.raises(exception.NodeGroupNotFound, match="default-master"):
        settings.default_master([extra, worker])


def test_the_boot_volume_label_beats_the_configured_default():
    cfg.CONF.set_override("default_boot_volume_size", 40, "cinder")

    assert settings.boot_volume_size(None) == 40
    assert settings.boot_volume_size({"boot_volume_size": ""}) == 40
    assert settings.boot_volume_size({"boot_volume_size": "100"}) == 100
    assert settings.boot_volume_size({"boot_volume_size": "-5"}) == 0
    with pytest.raises(exception.InvalidParameterValue, match="boot_volume_size"):
        settings.boot_volume_size({"boot_volume_size": "big"})
