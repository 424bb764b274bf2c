"""The Octavia network driver of the full tier, as Octavia runs it (octavia-api and
octavia-worker load it; only the full tier's venv holds Octavia): a VIP is a real Neutron
port of the load balancer's project at the requested address, so a floating IP attaches to
it, and the delete removes both; a VIP subnet Neutron does not know is refused with 400."""

from __future__ import annotations

import ipaddress

import pytest

pytestmark = pytest.mark.full_tier


def test_floating_ip_on_a_load_balancer_vip(heat_demo, demo_session, stacks, stack_name, lc):
    """The VIP is a Neutron port of the demo project at the requested address, a floating
    IP attaches to it (master_lb_floating_ip_enabled clusters), and a delete removes both."""
    from neutronclient.common import exceptions as neutron_exc
    from neutronclient.v2_0 import client as neutron_client

    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "lb_fip_full.yaml")
    out = lc.outputs(stack)
    assert out["vip_address"] == "127.11.3.50"
    neutron = neutron_client.Client(session=demo_session, region_name="RegionOne")
    port = neutron.show_port(out["vip_port_id"])["port"]
    assert [ip["ip_address"] for ip in port["fixed_ips"]] == ["127.11.3.50"]
    assert port["device_owner"] == "Octavia" and port["device_id"] == "lb-" + out["lb_id"]
    fip = neutron.show_floatingip(out["floating_ip_id"])["floatingip"]
    assert fip["port_id"] == port["id"] and fip["fixed_ip_address"] == "127.11.3.50"
    assert ipaddress.ip_address(out["floating_ip"]) in ipaddress.ip_network("127.24.4.0/24")
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)
    for show, ident in ((neutron.show_port, port["id"]), (neutron.show_floatingip, fip["id"])):
        with pytest.raises(neutron_exc.NotFound):
            show(ident)


def test_a_load_balancer_on_a_missing_subnet_is_refused(demo_session):
    """Octavia checks the VIP subnet against Neutron (the noop driver accepted any id)."""
    import uuid

    url = demo_session.get_endpoint(service_type="load-balancer", interface="public",
                                    region_name="RegionOne")
    missing = str(uuid.uuid4())
    resp = demo_session.post(url + "/v2/lbaas/loadbalancers", raise_exc=False,
                             json={"loadbalancer": {"vip_subnet_id": missing}})
    assert resp.status_code == 400 and f"Subnet {missing} not found" in resp.text
