"""The composite rules mean what operators' policy files expect of their names."""

from __future__ import annotations

from magnum_api.policies import base
from tests.unit.magnum_api.policies import support


def test_each_composite_rule_lets_through_who_it_names():
    names = {rule.name for rule in base.list_rules()}
    for check, who in support.ALLOWED.items():
        assert check.removeprefix("rule:") in names
        assert support.allowed(check.removeprefix("rule:")) == who, check
    assert support.allowed("is_user") == {"member", "reader"}
    # the upstream defaults stay readable for operators' files that still use them
    deprecated = [r for r in base.list_rules() if r.deprecated_rule is not None]
    assert deprecated and all(r.deprecated_rule.deprecated_since for r in deprecated)
