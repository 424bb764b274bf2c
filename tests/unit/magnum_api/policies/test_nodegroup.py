"""``nodegroup:*``: who passes each rule."""

from __future__ import annotations

from magnum_api.policies import nodegroup
from tests.unit.magnum_api.policies import support


def test_who_passes_each_nodegroup_rule():
    seen = support.check_rules(nodegroup.list_rules())
    assert seen["nodegroup:create"] == {"admin", "member"}
    assert seen["nodegroup:get"] == {"admin", "member", "reader"}
