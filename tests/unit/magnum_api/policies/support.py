"""Who each policy rule lets through, evaluated by oslo.policy with the API's defaults:
a cloud admin (of another project), a member and a reader of the cluster's project, and a
member of another project."""

from __future__ import annotations

import re

from magnum_api import policy
from magnum_api.controllers import root  # noqa: F401 - declares every operation
from magnum_api.policies import base
from magnum_api.schemas import operation
from magnum_common.context import RequestContext

WHO = {
    "admin": RequestContext(user_id="root", project_id="q", roles=["admin"]),
    "member": RequestContext(user_id="u", project_id="p", roles=["member", "reader"]),
    "reader": RequestContext(user_id="u", project_id="p", roles=["reader"]),
    "stranger": RequestContext(user_id="s", project_id="q", roles=["member", "reader"]),
}
TARGET = {"project_id": "p", "user_id": "u"}
#: What each composite rule means, written out (not derived from its name).
ALLOWED = {
    base.ADMIN: {"admin"},
    base.ADMIN_OR_PROJECT_READER: {"admin", "member", "reader"},
    base.ADMIN_OR_PROJECT_READER_DENY_CLUSTER_USER: {"admin", "member", "reader"},
    base.ADMIN_OR_PROJECT_READER_USER: {"admin", "member", "reader"},
    base.ADMIN_OR_PROJECT_MEMBER: {"admin", "member"},
    base.ADMIN_OR_PROJECT_MEMBER_USER: {"admin", "member"},
    base.ADMIN_OR_PROJECT_MEMBER_DENY_CLUSTER_USER: {"admin", "member"},
    base.ADMIN_OR_PROJECT_MEMBER_USER_OR_CLUSTER_USER: {"admin", "member"},
    base.PROJECT_MEMBER_DENY_CLUSTER_USER: {"member"},
}


def allowed(rule: str) -> set[str]:
    policy.reset()
    return {who for who, ctx in WHO.items() if policy.check(ctx, rule, dict(TARGET))}


def check_rules(rules) -> dict[str, set[str]]:
    """Every rule lets through exactly who its composite names; its documented operations
    are operations of the API. Returns who passes each rule."""
    declared = {(op.method, _shape(op.path)) for op in operation.REGISTRY}
    seen = {}
    for rule in rules:
        seen[rule.name] = allowed(rule.name)
        assert seen[rule.name] == ALLOWED[rule.check_str], rule.name
        for op in rule.operations:
            assert (op["method"], _shape(op["path"])) in declared, (rule.name, op)
    return seen


def _shape(path: str) -> str:
    return re.sub(r"\{\w+\}", "{}", path.rstrip("/"))
