"""Every rule the API enforces is listed once, for the policy generator and the enforcer."""

from __future__ import annotations

from magnum_api import policies, policy
from magnum_api.schemas import operation
from tests.unit.magnum_api.policies import support  # noqa: F401 - declares the operations


def test_every_rule_once_and_every_enforced_rule_listed():
    names = [rule.name for rule in policies.list_rules()]
    assert len(names) == len(set(names))
    enforced = {rule for op in operation.REGISTRY for rule in op.policy}
    assert enforced and enforced <= set(names), sorted(enforced - set(names))
    assert set(policy.init().registered_rules) >= set(names)
