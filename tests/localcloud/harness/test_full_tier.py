"""Tier full only: Heat creates real (fake-driver) Nova servers and real Neutron resources."""

from __future__ import annotations

import ipaddress

import pytest

pytestmark = pytest.mark.full_tier


def test_seed_data(admin_session, demo_session):
    from neutronclient.v2_0 import client as neutron_client
    from novaclient import client as nova_client

    nova = nova_client.Client("2.1", session=admin_session, region_name="RegionOne")
    flavors = {f.name: f for f in nova.flavors.list()}
    assert flavors["m1.small"].disk == 10
    assert "m1.medium" in flavors
    demo_nova = nova_client.Client("2.1", session=demo_session, region_name="RegionOne")
    assert "localcloud-demo" in [k.name for k in demo_nova.keypairs.list()]
    # a server group per node group: parallel test workers' clusters in demo fit at once
    quota = nova.quotas.get(demo_session.get_project_id())
    assert quota.server_groups >= 100 and quota.server_group_members >= 100
    neutron = neutron_client.Client(session=admin_session, region_name="RegionOne")
    public = neutron.list_networks(name="public")["networks"]
    assert public and public[0]["router:external"] is True
    subnet = neutron.list_subnets(network_id=public[0]["id"])["subnets"][0]
    assert subnet["cidr"] == "127.24.4.0/24"


def test_heat_builds_real_servers_and_ports(heat_demo, demo_session, stacks, stack_name, lc):
    from neutronclient.v2_0 import client as neutron_client
    from novaclient import client as nova_client

    sid, stack, took = lc.create_complete(heat_demo, stacks, stack_name, "cluster.yaml",
                                          files={"node.yaml": lc.template("node.yaml")},
                                          parameters={"node_count": 2})
    out = lc.outputs(stack)
    nova = nova_client.Client("2.1", session=demo_session, region_name="RegionOne")
    group = heat_demo.resources.get(sid, "nodes").physical_resource_id
    servers = {}
    for member in heat_demo.resources.list(group):
        server_id = heat_demo.resources.get(member.physical_resource_id,
                                            "server").physical_resource_id
        server = nova.servers.get(server_id)
        servers[server.name] = server
    neutron = neutron_client.Client(session=demo_session, region_name="RegionOne")
    fips = {f["floating_ip_address"]: f for f in neutron.list_floatingips()["floatingips"]}
    for name, fixed, floating in zip(out["server_names"], out["fixed_ips"],
                                     out["floating_ips"], strict=True):
        assert servers[name].status == "ACTIVE"
        addrs = [a["addr"] for net in servers[name].addresses.values() for a in net]
        assert fixed in addrs
        assert ipaddress.ip_address(floating) in ipaddress.ip_network("127.24.4.0/24")
        assert fips[floating]["fixed_ip_address"] == fixed
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)
    remaining = {s.id for s in nova.servers.list()}
    assert not {s.id for s in servers.values()} & remaining


def test_heat_builds_octavia_load_balancers(heat_demo, demo_session, stacks, stack_name, lc):
    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "lb_full.yaml")
    out = lc.outputs(stack)
    url = demo_session.get_endpoint(service_type="load-balancer", interface="public",
                                    region_name="RegionOne")
    lb = demo_session.get(url + "/v2/lbaas/loadbalancers/" + out["lb_id"]).json()
    lb = lb["loadbalancer"]
    assert lb["provisioning_status"] == "ACTIVE"
    assert lb["vip_address"] == out["vip_address"]
    assert len(lb["listeners"]) == 1 and len(lb["pools"]) == 1
    members = demo_session.get("%s/v2/lbaas/pools/%s/members" % (url, lb["pools"][0]["id"]))
    (member,) = members.json()["members"]  # a real member: its delete must not go to ERROR
    assert member["address"] == "127.11.4.10" and member["provisioning_status"] == "ACTIVE"
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)
    gone = demo_session.get(url + "/v2/lbaas/loadbalancers/" + out["lb_id"], raise_exc=False)
    assert gone.status_code == 404 or gone.json()["loadbalancer"]["provisioning_status"] in (
        "DELETED", "PENDING_DELETE")
