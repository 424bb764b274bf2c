"""The state machine's gates and status helpers."""

from __future__ import annotations

from magnum_common import states


def test_status_helpers():
    assert states.action_of(states.UPDATE_IN_PROGRESS) == "UPDATE"
    assert states.is_in_progress(states.DELETE_IN_PROGRESS)
    assert not states.is_in_progress(states.CREATE_COMPLETE)
    assert states.UPDATE_FAILED in states.RESIZABLE and states.UPDATE_FAILED not in states.STABLE


def test_action_of_every_status_and_of_nothing():
    for status in states.ALL_STATUSES:
        action = states.action_of(status)
        assert status.startswith(action + "_") and "_" not in action
    assert states.action_of(None) is None and states.action_of("") is None
    assert states.action_of("WEIRD") == "WEIRD"
    assert not states.is_in_progress(None)


def test_the_gates_fit_together():
    assert states.IN_PROGRESS.isdisjoint(states.STABLE)
    assert states.STATUS_FAILED.isdisjoint(states.STABLE)
    assert set(states.OPERATION_GATES) == set(states.OPERATIONS)
    # Every operation but the create moves the cluster to a status when it starts.
    assert set(states.ACCEPTED_STATUS) == set(states.OPERATIONS) - {states.OP_CREATE}
    assert all(states.is_in_progress(status) for status, _ in states.ACCEPTED_STATUS.values())
    assert states.OPERATION_OPEN < set(states.OPERATION_STATES)
    assert len(states.FEDERATION_STATUSES) == 9 and "DELETE_FAILED" in \
        states.FEDERATION_STATUSES
