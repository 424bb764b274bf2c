"""``clustertemplate:*``: who passes each rule."""

from __future__ import annotations

from magnum_api.policies import cluster_template
from tests.unit.magnum_api.policies import support


def test_who_passes_each_template_rule():
    seen = support.check_rules(cluster_template.list_rules())
    assert seen["clustertemplate:create"] == {"admin", "member"}
    assert seen["clustertemplate:publish"] == {"admin"}
    assert "reader" in seen["clustertemplate:get"]
