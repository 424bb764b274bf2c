"""Asking Heat how stacks are doing: batched stack lists, failure details, outputs.

Stack lists are project-scoped, so the status sync hands over a session acting in the
project (a cluster's trust) and asks about all that project's stacks at once:
``stacks.list(filters={'id': [...]})`` per chunk of ids instead of one ``stacks.get`` per
cluster. Without such a session (no usable trust in the project) the service looks each
stack up by id. Heat's ``ACTION_STATUS`` vocabulary is the cluster status vocabulary, so
states pass through as they are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from oslo_log import log as logging

from drivers.heat import retry
from magnum_common import states
from magnum_common.drivers.base import StackPoll, StackState

LOG = logging.getLogger(__name__)

#: Stack ids per stack-list request (keeps the query string well under URL limits).
CHUNK = 80


def _state(stack: Any) -> StackState:
    return StackState(stack.id, stack.stack_status, getattr(stack, "stack_status_reason", None))


def _chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def stack_states(heat: Any, stack_ids: Sequence[str], as_service: bool = False) -> StackPoll:
    """States of the stacks of one project; ``as_service``: looked up one by one."""
    poll = StackPoll()
    if as_service:
        for stack_id in stack_ids:
            poll.requests += 1
            try:
                stack = retry.call(heat.stacks.get, stack_id)
            except Exception as exc:
                if retry.is_not_found(exc):
                    continue
                raise
            if stack.stack_status != states.DELETE_COMPLETE:
                poll.states[stack.id] = _state(stack)
        return poll
    for chunk in _chunks(stack_ids, CHUNK):
        poll.requests += 1
        for stack in retry.call(lambda c=chunk: list(
                heat.stacks.list(filters={"id": list(c)}, limit=len(c)))):
            poll.states[stack.id] = _state(stack)
    return poll


#: Heat's path to a nested resource in a reason: ``resources.a.resources[0].resources.b``.
_HEAT_PATH = re.compile(r"resources(?:\.[\w-]+|\[\d+\])(?:\.resources(?:\.[\w-]+|\[\d+\]))*: ")


def leaf_message(reason: str | None) -> str:
    """The message at the end of Heat's chain ``<Error>: resources.a...b: <message>``: every
    level of nesting repeats it behind a longer path."""
    text = reason or ""
    match = _HEAT_PATH.search(text)
    return text[match.end():] if match else text


def _culprit(failed: list[Any]) -> Any:
    """The failed resource that is the cause, not a container of it: a real (non-Heat)
    OS:: type, one without a nested stack first (a real server), then one with (a
    provider template standing in for a server, whose inner resources are no server);
    else one without a nested stack; then the one with the shortest chain left."""

    def rank(resource: Any) -> tuple[int, int]:
        nested = any(link.get("rel") == "nested" for link in getattr(resource, "links", []))
        kind = resource.resource_type or ""
        real = kind.startswith("OS::") and not kind.startswith("OS::Heat::")
        chain = len(resource.resource_status_reason or "") - len(
            leaf_message(resource.resource_status_reason))
        return ((0 if not nested else 1) if real else (2 if not nested else 3), chain)

    return min(failed, key=rank)


#: How deep ``failure_summary`` looks: cluster stack -> node group -> resource group ->
#: member stack -> server is four levels (Heat's own cap, max_nested_stack_depth, is 5).
NESTED_DEPTH = 4


def failure_summary(heat: Any, stack_id: str) -> str:
    """'Resource a (OS::X) CREATE_FAILED: why' for the resource that caused a stack's
    failure, its message once (every level above it repeats the same message)."""
    try:
        resources = retry.call(heat.resources.list, stack_id, nested_depth=NESTED_DEPTH)
    except Exception as exc:  # the stack's own reason still says something
        LOG.debug("Could not list resources of stack %s: %s", stack_id, exc)
        return ""
    failed = [r for r in resources if (r.resource_status or "").endswith("FAILED")]
    if not failed:
        return ""
    culprit = _culprit(failed)
    return (f"Resource {culprit.resource_name} ({culprit.resource_type}) "
            f"{culprit.resource_status}: {leaf_message(culprit.resource_status_reason)}")


def finished_stack(heat: Any, stack_id: str) -> Any:
    """A finished stack with its outputs resolved."""
    return retry.call(heat.stacks.get, stack_id, resolve_outputs=True)
