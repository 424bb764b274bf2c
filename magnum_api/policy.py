"""The policy enforcer: built once per process, rules registered from magnum_api.policies.

oslo.policy re-reads the policy file only when its modification time changes, so the hot
path costs a dictionary lookup and the rule evaluation.
"""

from __future__ import annotations

import sys
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from magnum_api import policies
from magnum_common import exception
from magnum_common.context import RequestContext

CONF = cfg.CONF
_ENFORCER: policy.Enforcer | None = None


def init() -> policy.Enforcer:
    """The process-wide enforcer (created on first use)."""
    global _ENFORCER
    if _ENFORCER is None:
        enforcer = policy.Enforcer(CONF)
        enforcer.register_defaults(policies.list_rules())
        _ENFORCER = enforcer
    return _ENFORCER


def reset() -> None:
    """Forget the enforcer (tests and configuration reloads)."""
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def get_enforcer() -> policy.Enforcer:
    """Entry point ``oslo.policy.enforcer`` for the oslopolicy-* command line tools."""
    conf_args = []
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg in ("--config-file", "--config-dir") and i + 1 < len(argv):
            conf_args += [arg, argv[i + 1]]
        elif arg.startswith(("--config-file=", "--config-dir=")):
            conf_args.append(arg)
    CONF(conf_args, project="magnum")
    return init()


def credentials(context: RequestContext) -> dict[str, Any]:
    creds = dict(context.to_policy_values())
    creds["is_admin"] = context.is_admin
    return creds


def default_target(context: RequestContext) -> dict[str, Any]:
    return {"project_id": context.project_id, "user_id": context.user_id}


def authorize(context: RequestContext, rule: str, target: dict[str, Any] | None = None,
              exc: type[exception.MagnumException] = exception.PolicyNotAuthorized) -> None:
    """Raise 403 unless ``rule`` passes; a wrong token scope is the same 403."""
    if not check(context, rule, target):
        if exc is exception.PolicyNotAuthorized:
            raise exc(action=rule)
        raise exc()


def check(context: RequestContext, rule: str, target: dict[str, Any] | None = None) -> bool:
    try:
        return bool(init().enforce(rule, target if target is not None else
                                   default_target(context), credentials(context)))
    except policy.InvalidScope:
        return False


def is_admin(context: RequestContext) -> bool:
    """The ``context_is_admin`` rule, evaluated once per request by the context hook."""
    return check(context, "context_is_admin", default_target(context))
