"""``certificate:*``: who passes each rule."""

from __future__ import annotations

from magnum_api.policies import certificate
from tests.unit.magnum_api.policies import support


def test_who_passes_each_certificate_rule():
    seen = support.check_rules(certificate.list_rules())
    assert "stranger" not in set().union(*seen.values())
    assert seen["certificate:rotate_ca"] == {"admin", "member"}
