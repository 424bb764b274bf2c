"""Stack state -> node group status -> cluster status (pure functions, no I/O).

Node groups copy the state of the stack that holds them (drivers report stack states in
the cluster vocabulary, ``magnum_common.drivers.base.StackState``); the cluster status is
aggregated from its node groups: the first of in-progress / failed / complete found among
them decides the suffix, the action is the default master's unless non-default groups
exist (then UPDATE, or DELETE while deleting).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from magnum_common import states
from magnum_common.drivers.base import StackState

#: Stack statuses after which the stack's outputs are final and worth parsing.
OUTPUT_STATUSES = frozenset({states.CREATE_COMPLETE, states.CREATE_FAILED,
                             states.UPDATE_COMPLETE})
_MISSING = {
    states.DELETE_IN_PROGRESS: states.DELETE_COMPLETE,
    states.CREATE_IN_PROGRESS: states.CREATE_FAILED,
    states.UPDATE_IN_PROGRESS: states.UPDATE_FAILED,
    states.ROLLBACK_IN_PROGRESS: states.UPDATE_FAILED,
}


@dataclasses.dataclass
class GroupState:
    """A node group's status after the sync; ``gone`` means its row is to be destroyed."""

    uuid: str
    name: str
    status: str | None
    reason: str | None
    is_default: bool
    role: str | None
    gone: bool = False
    #: Failed only because it shares the failed cluster stack with the group at fault.
    bystander: bool = False


def nodegroup_state(ng: Any, stack: StackState | None) -> GroupState:
    """A node group's new status given its stack (None: the backend does not know it)."""
    result = GroupState(ng.uuid, ng.name, ng.status, ng.status_reason, bool(ng.is_default),
                        ng.role)
    if not ng.stack_id:
        return result
    if stack is None:
        if ng.status in _MISSING:
            result.status = _MISSING[ng.status]
            result.reason = f"Stack with id {ng.stack_id} not found in Heat."
    else:
        result.status = stack.status
        result.reason = stack.reason
    if result.status == states.DELETE_COMPLETE and not result.is_default:
        result.gone = True
    return result


def _mentions(text: str, name: str) -> bool:
    return name in text or name.replace("-", "_") in text


def attribute_shared_failures(groups: Sequence[GroupState]) -> None:
    """Name only the node groups a shared stack's failure is about.

    The default groups share the cluster stack, so they all copy its failure; when the
    failure text names some of them (Heat resource paths carry the group's name), the
    others are marked bystanders and say which group failed.
    """
    failed = [g for g in groups
              if g.is_default and (g.status or "").endswith("_FAILED") and g.reason]
    if len(failed) < 2:
        return
    culprits = [g for g in failed if _mentions(failed[0].reason or "", g.name)]
    if not culprits or len(culprits) == len(failed):
        return
    names = ", ".join(g.name for g in culprits)
    for group in failed:
        if group not in culprits:
            group.bystander = True
            group.reason = f"The cluster stack failed in node group {names}."


def cluster_state(previous: str | None,
                  groups: Sequence[GroupState]) -> tuple[str | None, str | None]:
    """(status, status_reason) of a cluster from its node groups' states."""
    live = [g for g in groups if not g.gone]
    if not live:
        return previous, None
    suffix = None
    for candidate in ("_IN_PROGRESS", "_FAILED", "_COMPLETE"):
        if any((g.status or "").endswith(candidate) for g in live):
            suffix = candidate
            break
    master = next((g for g in live if g.is_default and g.role == "master"),
                  next((g for g in live if g.is_default), None))
    if any(not g.is_default for g in live) and suffix:
        deleting = master is not None and (master.status or "").startswith("DELETE")
        status = ("DELETE" if deleting else "UPDATE") + suffix
    else:
        status = master.status if master is not None else previous
    if status == states.CREATE_COMPLETE and previous not in (states.CREATE_COMPLETE,
                                                              states.CREATE_IN_PROGRESS):
        status = states.UPDATE_COMPLETE
    reason = None
    if status and status.endswith("_FAILED"):
        # groups failing for one reason (the default groups share a stack) say it once
        by_reason: dict[str, list[str]] = {}
        for g in live:
            if (g.status or "").endswith("_FAILED") and not g.bystander:
                by_reason.setdefault(g.reason or "", []).append(g.name)
        reason = "; ".join(
            f"{', '.join(names)} failed: {why}" if why else f"{', '.join(names)} failed"
            for why, names in by_reason.items())
    return status, reason


def deleted(groups: Sequence[GroupState]) -> bool:
    """True when every default node group's stack is gone: the cluster can be destroyed."""
    defaults = [g for g in groups if g.is_default]
    return bool(defaults) and all(g.status == states.DELETE_COMPLETE for g in defaults)
