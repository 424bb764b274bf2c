"""(b) a Magnum-shaped stack lifecycle, (d) 'missing-' constraint values, (e) the fail switch.

Heat runs for real; Nova/Neutron/Octavia/Cinder types are the lite tier's facades and the
wait conditions are answered by the node simulator (localcloud/helpers/nodesim.py).
"""

from __future__ import annotations

import ipaddress
import re

import pytest
from heatclient import exc

# lite: the fixed pool 127.10.0.0/16; full: the test templates' own subnets 127.11.x.0/24
FIXED = ipaddress.ip_network("127.10.0.0/15")
FLOATING = ipaddress.ip_network("127.24.0.0/16")


def _create(heat, stacks, name, lc, **params):
    body = heat.stacks.create(stack_name=name, template=lc.template("cluster.yaml"),
                              files={"node.yaml": lc.template("node.yaml")}, parameters=params)
    stacks.append(body["stack"]["id"])
    return body["stack"]["id"]


def _members(heat, stack_id):
    """ResourceGroup member names of the 'nodes' group."""
    nodes = heat.resources.get(stack_id, "nodes")
    nested = nodes.physical_resource_id
    return sorted(r.resource_name for r in heat.resources.list(nested))


def _check_nodes(out, names):
    assert out["server_names"] == ["node-%s" % n for n in names]
    fixed = out["fixed_ips"]
    assert len(fixed) == len(names) and len(set(fixed)) == len(fixed), fixed
    assert all(ipaddress.ip_address(ip) in FIXED for ip in fixed), fixed
    # the server's first address is its port's address
    assert out["first_addresses"] == fixed
    floating = out["floating_ips"]
    assert len(set(floating)) == len(names), floating
    assert all(ipaddress.ip_address(ip) in FLOATING for ip in floating), floating
    # each node's wait condition got the simulator's signal, with the server name as id
    for n, data in zip(names, out["wait_data"], strict=True):
        assert data == '{"node-%s": "ok"}' % n


def test_stack_lifecycle_scale_and_remove_member(heat_demo, stacks, stack_name, lc):
    timings = {}
    sid = _create(heat_demo, stacks, stack_name, lc, node_count=2)
    stack, timings["create 2"] = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason
    _check_nodes(lc.outputs(stack), ["0", "1"])
    assert _members(heat_demo, sid) == ["0", "1"]

    # scale 2 -> 3
    heat_demo.stacks.update(sid, existing=True, parameters={"node_count": 3})
    stack, timings["scale 2->3"] = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    _check_nodes(lc.outputs(stack), ["0", "1", "2"])

    # remove the named member "1" (what Magnum does for a node-group resize with nodes_to_remove)
    heat_demo.stacks.update(sid, existing=True,
                            parameters={"node_count": 2, "removal_list": ["1"]})
    stack, timings["remove member 1"] = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert _members(heat_demo, sid) == ["0", "2"]
    _check_nodes(lc.outputs(stack), ["0", "2"])

    heat_demo.stacks.delete(sid)
    timings["delete"] = lc.wait_deleted(heat_demo, sid)
    print("stack lifecycle timings (s):", {k: round(v, 1) for k, v in timings.items()})


@pytest.mark.parametrize("param", ["flavor", "external_network"])
def test_missing_values_are_refused_with_400(heat_demo, stacks, stack_name, lc, param):
    with pytest.raises(exc.HTTPBadRequest) as err:
        _create(heat_demo, stacks, stack_name, lc, **{param: "missing-x"})
    assert "missing-x" in str(err.value)
    # lite: the stubbed constraint's EntityNotFound; full: the real service's "not found"
    assert any(s in str(err.value) for s in ("could not be found", "Unable to find",
                                             "No Flavor matching")), str(err.value)


def test_missing_flavor_on_a_server_resource_is_refused(heat_demo, stacks, stack_name):
    tmpl = {
        "heat_template_version": "2021-04-16",
        "resources": {"server": {"type": "OS::Nova::Server", "properties": {
            "flavor": "missing-x", "image": "fedora-coreos-40"}}},
    }
    with pytest.raises(exc.HTTPBadRequest) as err:
        body = heat_demo.stacks.create(stack_name=stack_name, template=tmpl)
        stacks.append(body["stack"]["id"])
    assert "missing-x" in str(err.value)


@pytest.mark.lite_tier
def test_other_values_are_accepted(heat_demo, stacks, stack_name, lc):
    # anything but missing-* passes the stubbed constraints, the image is checked by real Glance
    with pytest.raises(exc.HTTPBadRequest) as err:
        _create(heat_demo, stacks, stack_name + "-img", lc, image="no-such-image")
    assert "no-such-image" in str(err.value)
    sid = _create(heat_demo, stacks, stack_name, lc, node_count=1, flavor="any.flavor.name",
                  external_network="some-net")
    stack, _ = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "CREATE_COMPLETE", stack.stack_status_reason


@pytest.mark.parametrize("how", [
    "flavor", pytest.param("metadata", marks=pytest.mark.lite_tier)])  # lite's switch only
def test_fail_switch_gives_create_failed_naming_the_server(heat_demo, stacks, stack_name, lc,
                                                            how, tier):
    params = {"node_count": 2}
    if how == "flavor":
        params["flavor"] = "fail.small"
    else:
        params["server_metadata"] = {"localcloud_fail": "true"}
    sid = _create(heat_demo, stacks, stack_name, lc, **params)
    stack, _ = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "CREATE_FAILED"
    reason = stack.stack_status_reason
    assert "resources.nodes" in reason and "resources.server" in reason, reason
    if tier == "lite":
        assert "failed to boot" in reason and "localcloud failure switch" in reason, reason
    else:  # the fail.small flavor of the full tier cannot be scheduled
        assert "No valid host" in reason, reason
    # the simulator never answered for a failed server: no wait condition completed
    nested = heat_demo.resources.get(sid, "nodes").physical_resource_id
    for member in heat_demo.resources.list(nested):
        if not member.physical_resource_id:
            continue
        for r in heat_demo.resources.list(member.physical_resource_id):
            if r.resource_name == "server":
                assert r.resource_status != "CREATE_COMPLETE"
            if r.resource_name == "wait":
                assert r.resource_status != "CREATE_COMPLETE", r.resource_status
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)


def test_software_deployment_is_signalled(heat_demo, stacks, stack_name, lc):
    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "deployment.yaml")
    out = lc.outputs(stack)
    assert out["deploy_stdout"] == "bootstrap complete (simulated)"
    assert out["deploy_status_code"] == 0
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)


@pytest.mark.lite_tier
def test_loadbalancer_facade_has_vip(heat_demo, stacks, stack_name, lc):
    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "lb.yaml")
    out = lc.outputs(stack)
    assert ipaddress.ip_address(out["vip_address"]) in FIXED
    assert out["lb_show"]["vip_address"] == out["vip_address"]
    assert out["lb_show"]["provisioning_status"] == "ACTIVE"
    assert ipaddress.ip_address(out["vip_floating_ip"]) in FLOATING
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)


@pytest.mark.lite_tier
def test_facades_take_magnum_shaped_properties(heat_demo, stacks, stack_name, lc):
    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "shapes.yaml")
    out = lc.outputs(stack)
    uuid_like = r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    assert re.match(uuid_like, out["server_id"]) and re.match(uuid_like, out["port_id"])
    ip = out["port_ip"]
    assert out["first_address"] == ip == out["floating_fixed"]
    assert list(out["networks"].values()) == [[ip]]
    (addr,) = [a for net in out["addresses"].values() for a in net]
    assert addr["addr"] == ip and addr["port"] == out["port_id"]
    assert addr["OS-EXT-IPS-MAC:mac_addr"] == out["port_mac"]
    assert out["server_show"]["name"] == "kube-master-0"
    assert out["server_show"]["status"] == "ACTIVE"
    assert out["server_show"]["metadata"] == {"metering.server_group": "master"}
    assert out["volume_status"] == "available"
    assert out["subnet_cidr"] == "127.11.5.0/24"
    assert ipaddress.ip_address(out["vip"]) in FIXED and out["vip"] != ip
    assert ipaddress.ip_address(out["floating_ip"]) in FLOATING
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)


def test_wait_condition_count_growing_with_updates(heat_demo, stacks, stack_name, lc):
    sid, stack, _ = lc.create_complete(heat_demo, stacks, stack_name, "growing_count.yaml")
    assert lc.outputs(stack)["data"] == '{"gen-node": "ok"}'
    heat_demo.stacks.update(sid, existing=True, parameters={"generation": 1})
    stack, took = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert took < 120, took  # not the condition's 300 s timeout
    heat_demo.stacks.delete(sid)
    lc.wait_deleted(heat_demo, sid)


def test_a_subnet_outside_loopback_is_refused(heat_demo, stacks, stack_name, lc):
    """Nothing the cloud hands out may leave the machine: a subnet outside 127.0.0.0/8 (DHCP
    off, so Neutron would take it) fails with a message saying so, on either tier."""
    template = {"heat_template_version": "2021-04-16", "resources": {
        "net": {"type": "OS::Neutron::Net"},
        "subnet": {"type": "OS::Neutron::Subnet", "properties": {
            "network": {"get_resource": "net"}, "cidr": "0.10.0.0/24", "enable_dhcp": False}}}}
    sid = heat_demo.stacks.create(stack_name=stack_name, template=template)["stack"]["id"]
    stacks.append(sid)
    stack, _ = lc.wait_stack(heat_demo, sid)
    assert stack.stack_status == "CREATE_FAILED"
    assert "0.10.0.0/24 is outside 127.0.0.0/8" in stack.stack_status_reason
