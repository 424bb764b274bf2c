"""Stack state -> node group -> cluster status (internals 2.5)."""

from __future__ import annotations

from types import SimpleNamespace

from magnum_common import states
from magnum_common.drivers.base import StackState
from magnum_conductor.status import aggregate
from magnum_conductor.status.aggregate import cluster_state, deleted, nodegroup_state


def ng(name, status, stack_id="s1", is_default=True, role="worker", reason=None):
    return SimpleNamespace(uuid=f"u-{name}", name=name, status=status, status_reason=reason,
                           stack_id=stack_id, is_default=is_default, role=role)


def test_copies_stack_status_and_reason():
    result = nodegroup_state(ng("w", states.CREATE_IN_PROGRESS),
                             StackState("s1", states.CREATE_FAILED, "boom"))
    assert (result.status, result.reason) == (states.CREATE_FAILED, "boom")


def test_without_stack_id_keeps_status():
    result = nodegroup_state(ng("w", states.CREATE_IN_PROGRESS, stack_id=None), None)
    assert result.status == states.CREATE_IN_PROGRESS


def test_missing_stack_maps_per_status():
    for before, after in ((states.DELETE_IN_PROGRESS, states.DELETE_COMPLETE),
                          (states.CREATE_IN_PROGRESS, states.CREATE_FAILED),
                          (states.UPDATE_IN_PROGRESS, states.UPDATE_FAILED)):
        result = nodegroup_state(ng("w", before), None)
        assert result.status == after
        if after.endswith("FAILED"):
            assert "not found in Heat" in result.reason


def test_non_default_delete_complete_is_gone():
    result = nodegroup_state(ng("extra", states.DELETE_IN_PROGRESS, is_default=False),
                             StackState("s1", states.DELETE_COMPLETE))
    assert result.gone


def _groups(*specs, stack_id=None):
    """Groups as the sync sees them; with a stack id and no stack, Heat lost the stack."""
    return [nodegroup_state(ng(*spec[:2], stack_id=stack_id, **spec[2]), None)
            for spec in specs]


def test_only_default_groups_follow_master():
    groups = _groups(("m", states.CREATE_COMPLETE, {"role": "master"}),
                     ("w", states.CREATE_COMPLETE, {}))
    assert cluster_state(states.CREATE_IN_PROGRESS, groups) == (states.CREATE_COMPLETE, None)


def test_create_complete_after_update_becomes_update_complete():
    groups = _groups(("m", states.CREATE_COMPLETE, {"role": "master"}),
                     ("w", states.CREATE_COMPLETE, {}))
    assert cluster_state(states.UPDATE_IN_PROGRESS, groups)[0] == states.UPDATE_COMPLETE


def test_non_default_groups_make_update_status_and_in_progress_wins():
    groups = _groups(("m", states.CREATE_COMPLETE, {"role": "master"}),
                     ("w", states.CREATE_COMPLETE, {}),
                     ("x", states.CREATE_IN_PROGRESS, {"is_default": False}))
    assert cluster_state(states.UPDATE_IN_PROGRESS, groups)[0] == states.UPDATE_IN_PROGRESS


def test_delete_action_when_master_deleting():
    groups = _groups(("m", states.DELETE_IN_PROGRESS, {"role": "master"}),
                     ("x", states.DELETE_FAILED, {"is_default": False}))
    assert cluster_state(states.DELETE_IN_PROGRESS, groups)[0] == states.DELETE_IN_PROGRESS


def test_failed_reason_names_groups():
    failed = StackState("s1", states.CREATE_FAILED, "Resource kube_masters failed")
    groups = [nodegroup_state(ng("m", states.CREATE_IN_PROGRESS, role="master"), failed),
              nodegroup_state(ng("w", states.CREATE_IN_PROGRESS), failed)]
    status, reason = cluster_state(states.CREATE_IN_PROGRESS, groups)
    assert status == states.CREATE_FAILED
    assert reason == "m, w failed: Resource kube_masters failed"


def test_deleted_needs_every_default_group_gone():
    assert deleted(_groups(("m", states.DELETE_IN_PROGRESS, {"role": "master"}),
                           ("w", states.DELETE_IN_PROGRESS, {}), stack_id="s1"))
    assert not deleted([nodegroup_state(ng("m", states.DELETE_IN_PROGRESS, role="master"),
                                        StackState("s1", states.DELETE_IN_PROGRESS))])


def test_a_shared_stack_failure_names_only_the_group_at_fault():
    reason = ("Resource CREATE failed: Error: resources.default_worker.resources.kube_minions"
              ".resources[0]: Server c-default-worker-0 failed to boot")
    groups = [
        aggregate.GroupState("m", "default-master", states.CREATE_FAILED, reason, True,
                               "master"),
        aggregate.GroupState("w", "default-worker", states.CREATE_FAILED, reason, True,
                               "worker"),
    ]
    aggregate.attribute_shared_failures(groups)
    assert groups[0].bystander and not groups[1].bystander
    assert groups[0].reason == "The cluster stack failed in node group default-worker."
    status, cluster_reason = aggregate.cluster_state(states.CREATE_IN_PROGRESS, groups)
    assert status == states.CREATE_FAILED
    assert cluster_reason == f"default-worker failed: {reason}"


def test_a_failure_naming_no_group_keeps_every_group():
    groups = [
        aggregate.GroupState("m", "default-master", states.CREATE_FAILED, "quota", True,
                               "master"),
        aggregate.GroupState("w", "default-worker", states.CREATE_FAILED, "quota", True,
                               "worker"),
    ]
    aggregate.attribute_shared_failures(groups)
    assert not any(g.bystander for g in groups)
    assert aggregate.cluster_state(states.CREATE_IN_PROGRESS, groups)[1] == (
        "default-master, default-worker failed: quota")
