"""The tiers' service lists: lite inside full, identity first and Heat late, every name
known to ``down``, probes on the machine's loopback."""

from __future__ import annotations

import urllib.parse

from localcloud import layout, tiers


def test_full_holds_lite_in_a_start_order_that_works():
    lite = [name for name, _ in tiers.lite_services()]
    full = [name for name, _ in tiers.full_services()]
    assert set(lite) < set(full) and len(full) == len(set(full))
    assert full[0] == "keystone" and lite[0] == "keystone"
    assert full.index("neutron") < full.index("nova-compute") < full.index("heat-engine")
    assert tiers.services_for("full") == tiers.full_services()
    assert tiers.services_for("lite") == tiers.services_for("anything") == \
        tiers.lite_services()
    assert tiers.all_known_services() == list(dict.fromkeys(lite + full))


def test_probes_are_loopback_urls_of_the_layouts_ports():
    for name, probe in tiers.full_services():
        if probe is None:
            continue
        parts = urllib.parse.urlsplit(probe)
        assert parts.hostname.startswith("127.") and parts.port == layout.PORTS[name]
