"""``federation:*``: who passes each rule."""

from __future__ import annotations

from magnum_api.policies import federation
from tests.unit.magnum_api.policies import support


def test_who_passes_each_federation_rule():
    seen = support.check_rules(federation.list_rules())
    assert seen["federation:create"] == {"admin", "member"}
    assert "reader" in seen["federation:get"]
