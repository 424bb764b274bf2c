"""What the full tier decides before a service runs (bringing it up is
tests/localcloud/harness/test_full_tier.py): its address plan stays inside 127.0.0.0/8, the
services authenticate against the local Keystone, its ports add to lite's, and a state
directory that never synced Neutron records the plan without resetting anything."""

from __future__ import annotations

import ipaddress
import os

from localcloud import full, layout
from localcloud.config import auth_url

LOCAL = ipaddress.ip_network("127.0.0.0/8")


def test_the_address_plan_stays_on_this_machine():
    for subnet in (full.PUBLIC_SUBNET, full.PRIVATE_SUBNET):
        cidr = ipaddress.ip_network(subnet["cidr"])
        assert cidr.subnet_of(LOCAL)
        gateway = ipaddress.ip_address(subnet["gateway_ip"])
        for pool in subnet["allocation_pools"]:
            start, end = (ipaddress.ip_address(pool[k]) for k in ("start", "end"))
            assert start in cidr and end in cidr and start <= end
            assert not start <= gateway <= end  # the gateway is never handed out
    assert not ipaddress.ip_network(full.PUBLIC_SUBNET["cidr"]).overlaps(
        ipaddress.ip_network(full.PRIVATE_SUBNET["cidr"]))


def test_services_authenticate_locally_and_the_ports_add_to_lite(tmp_path):
    state = full.FullCloud(layout.Layout(str(tmp_path / "state")))
    auth = state.service_auth("nova")
    assert (auth["auth_url"], auth["username"], auth["password"]) == (
        auth_url(), "nova", state.sec["nova"])
    assert auth["auth_url"].startswith("http://127.0.0.1:")
    assert set(state.ports()) == {"keystone", "heat-api", "barbican", "glance",
                                  "etcd-discovery", "placement", "nova-api", "neutron",
                                  "octavia-api"}
    assert state.heat_names()[0] == "heatfull"


def test_a_directory_that_never_synced_neutron_records_the_plan_only(tmp_path):
    lay = layout.Layout(str(tmp_path / "state"))
    state = full.FullCloud(lay)
    state.reset_for_address_plan()
    with open(lay.marker("address-plan")) as f:
        assert f.read().strip() == full.ADDRESS_PLAN
    state.reset_nova_if_compute_restarts()  # Nova never synced: nothing to reset
    assert sorted(os.listdir(lay.markers)) == ["address-plan"]
