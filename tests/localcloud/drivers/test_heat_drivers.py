"""The Kubernetes drivers against real Heat: template validation and a full cluster life.

Heat runs for real (stubbed leaf resources on the lite tier); the local cloud's node
simulator plays each booted node's last step, signalling the node's wait condition.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import itertools
import os
import urllib.parse

import pytest

from drivers.heat import parameters, renderer, stack_ops, upgrade
from magnum_common import exception
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView, NodeGroupRow, TemplateRow
from tests.unit.drivers import support

DRIVERS = ["k8s_fedora_coreos_v1", "k8s_ubuntu_v1", "k8s_fedora_atomic_v1"]
#: Whose whole stack life runs: in CI the recommended driver (every driver's templates are
#: validated by Heat above, and their renderings by the unit tier);
#: ``MAGNUM_E2E_DRIVERS=k8s_fedora_coreos_v1,k8s_ubuntu_v1,k8s_fedora_atomic_v1`` runs all.
LIFE_DRIVERS = os.environ.get("MAGNUM_E2E_DRIVERS", DRIVERS[0]).split(",")
SHAPES = sorted({parameters.Features(existing_network=e, master_lb=lb, floating_ip=fip,
                                     lb_floating_ip=lb and fip, etcd_volume=etcd,
                                     master_docker_volume=vol, worker_docker_volume=vol,
                                     boot_volume=boot, tls_disabled=lb and tls)
                 for e, lb, fip, etcd, vol, boot, tls in itertools.product(*[[False, True]] * 7)},
                key=dataclasses.astuple)


#: The local cloud's seeded network (127.10.0.0/16, no DHCP): the drivers' own private subnet
#: has DHCP on, which real Neutron refuses on a loopback subnet.
LOCAL_NETWORK = {"fixed_network": "private", "fixed_subnet": "private-subnet"}


def _all_local(outputs) -> None:
    """Every address the stack reports is in 127.0.0.0/8 (the local cloud hands out no other)."""
    hosts = [urllib.parse.urlsplit(outputs.api_address).hostname]
    hosts += [a for addresses in outputs.node_addresses.values() for a in addresses]
    assert hosts and all(ipaddress.ip_address(h) in ipaddress.ip_network("127.0.0.0/8")
                         for h in hosts), hosts


def _has_cinder(resources) -> bool:
    return any(resources.url_for(t) for t in ("block-storage", "volumev3", "volume"))


def _supported(shape: parameters.Features, resources) -> bool:
    """Heat refuses resource types whose service is not in the catalog (tier full has no
    Cinder or Octavia); the lite tier stubs them all, so every shape is checked there."""
    if shape.master_lb and not resources.url_for("load-balancer"):
        return False
    volumes = (shape.etcd_volume or shape.master_docker_volume or shape.worker_docker_volume)
    return not (volumes and not _has_cinder(resources))


def _image(resources, os_distro: str) -> str:
    from glanceclient import Client

    glance = Client("2", session=resources.session())
    for image in glance.images.list(filters={"os_distro": os_distro}):
        return image["name"]
    pytest.fail(f"the local cloud has no image with os_distro={os_distro}")


@pytest.mark.parametrize("driver_name", DRIVERS)
def test_every_rendered_template_passes_heat_validation(driver_name, resources):
    heat = resources.heat()
    shapes = [s for s in SHAPES if _supported(s, resources)]
    assert len(shapes) >= 8
    for shape in shapes:
        for rendered in (renderer.render_cluster(driver_name, shape),
                         renderer.render_nodegroup(driver_name, shape)):
            result = heat.stacks.validate(template=rendered.template, files=rendered.files)
            assert "Parameters" in result, shape


def _vip_owner(resources, floating_address: str) -> str | None:
    """The device owner of the port behind a floating IP (None without Neutron): "Octavia"
    when the address is the API load balancer's."""
    network = resources.url_for("network")
    if not network:
        return None
    fips = resources.session().get(f"{network}/v2.0/floatingips",
                                 params={"floating_ip_address": floating_address}).json()
    (fip,) = fips["floatingips"]
    port = resources.session().get(f"{network}/v2.0/ports/{fip['port_id']}").json()["port"]
    return port["device_owner"]


def _servers(heat, stack_id: str) -> dict[str, str]:
    """Server name -> physical id of every server in the stack and its nested stacks."""
    return {r.resource_name + ":" + r.physical_resource_id: r.physical_resource_id
            for r in heat.resources.list(stack_id, nested_depth=3)
            if r.resource_type == "OS::Nova::Server" and r.physical_resource_id}


@pytest.mark.parametrize("driver_name", LIFE_DRIVERS)
def test_cluster_life_create_scale_remove_nodegroup_upgrade_delete(
        driver_name, resources, cleanup, heat_helpers):
    heat = resources.heat()
    driver = registry.all_drivers()[driver_name]
    wait = heat_helpers.wait_stack
    # Masters must survive replacement: etcd on a volume, or, without Cinder (tier full),
    # three masters behind the API load balancer with a floating IP on its VIP.
    etcd = {"etcd_volume_size": "1"} if _has_cinder(resources) else {}
    masters = 1 if etcd else 3
    lb = masters > 1
    image = _image(resources, driver.profile.os_distro)
    ct = support.template(floating_ip_enabled=True, cluster_distro=driver.profile.os_distro,
                          image_id=image, keypair_id=None, master_lb_enabled=lb,
                          labels={"kube_tag": "v1.31.4", **etcd}, **LOCAL_NETWORK)
    cl = support.cluster(ct, name=f"lc-{driver_name[4:14]}", keypair=None)
    ngs = support.default_nodegroups(cl, masters, 1)
    for ng in ngs:
        ng.image_id = image
    master, worker = ngs

    def view(template=ct) -> ClusterView:
        """What the conductor hands the driver: the rows as they are now."""
        return ClusterView.of(cl, template, ngs)

    # Create; a replayed create finds the same stack instead of making a second one.
    stack_id = driver.create_cluster(resources, view(), 20)
    cleanup.append(stack_id)
    assert driver.create_cluster(resources, view(), 20) == stack_id
    created = wait(heat, stack_id)
    assert created.stack_status == "CREATE_COMPLETE", created.stack_status_reason
    cl.stack_id = stack_id
    out = driver.read_outputs(resources, view(), stack_id)
    assert out.api_address.startswith("https://") and out.api_address.endswith(":6443")
    assert len(out.node_addresses[master.uuid]) == masters
    assert len(out.node_addresses[worker.uuid]) == 1
    assert out.coe_version == "v1.31.4"
    _all_local(out)
    if lb:
        host = urllib.parse.urlsplit(out.api_address).hostname
        assert host not in out.node_addresses[master.uuid]
        assert _vip_owner(resources, host) == ("Octavia" if resources.url_for("network")
                                               else None)

    # Scale the default workers up.
    driver.resize_cluster(resources, view(), NodeGroupRow.of(worker), 3, [])
    assert wait(heat, stack_id).stack_status == "UPDATE_COMPLETE"
    servers = stack_ops.live_outputs(heat, stack_id)["kube_minion_servers"]
    assert len(servers) == 3

    # Remove one named node: exactly that one goes.
    victim = sorted(servers)[1]
    driver.resize_cluster(resources, view(), NodeGroupRow.of(worker), 2, [victim])
    stack = wait(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE"
    left = stack_ops.live_outputs(heat, stack_id)["kube_minion_servers"]
    assert set(left) == set(servers) - {victim}
    assert driver.read_outputs(resources, view(), stack.id).node_counts[worker.uuid] == 2

    # Add a node group: its own stack wired to the cluster's network.
    extra = support.nodegroup(cl, "extra", "worker", 1, False, image_id=image)
    ngs.append(extra)
    ng_stack = driver.create_nodegroup(resources, view(), NodeGroupRow.of(extra))
    cleanup.append(ng_stack)
    extra.stack_id = ng_stack
    stack = wait(heat, ng_stack)
    assert stack.stack_status == "CREATE_COMPLETE"
    extra_outputs = driver.read_outputs(resources, view(), ng_stack)
    assert len(extra_outputs.node_addresses[extra.uuid]) == 1
    assert driver.stack_ids(view())[extra.uuid] == ng_stack

    # Upgrade: a downgrade is refused; a newer version replaces every node, masters first.
    older = support.template(labels={"kube_tag": "v1.30.9", **etcd}, **LOCAL_NETWORK)
    with pytest.raises(exception.InvalidParameterValue):
        driver.upgrade_cluster(resources, view(), TemplateRow.of(older),
                               NodeGroupRow.of(master), 1)
    newer = support.template(image_id=image, floating_ip_enabled=True, keypair_id=None,
                             master_lb_enabled=lb, labels={"kube_tag": "v1.32.1", **etcd},
                             **LOCAL_NETWORK)
    before = set(_servers(heat, stack_id).values())
    driver.upgrade_cluster(resources, view(), TemplateRow.of(newer),
                               NodeGroupRow.of(master), 1)
    stack = wait(heat, stack_id)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    after = set(_servers(heat, stack_id).values())
    assert len(after) == masters + 2
    if resources.url_for("compute"):  # real Nova replaces; the lite tier's facade updates
        assert not (before & after)
    assert stack.parameters["minion_kube_tag"] == "v1.32.1"
    assert (stack.parameters["master_generation"], stack.parameters["worker_generation"]) == (
        "1", "1")
    assert driver.read_outputs(resources, view(), stack.id).coe_version == "v1.32.1"
    driver.upgrade_cluster(resources, view(), TemplateRow.of(newer),
                               NodeGroupRow.of(extra), 1)
    stack = wait(heat, ng_stack)
    assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    assert stack.parameters["kube_tag"] == "v1.32.1" and stack.parameters["generation"] == "1"

    # The conductor records the upgrade on the rows; a CA rotation then replaces every node
    # again (next generation, new service-account keys) without touching versions.
    cl.labels = upgrade.upgraded_labels(cl, newer)
    for ng in ngs:
        ng.labels = upgrade.upgraded_labels(ng, newer)
    before = set(_servers(heat, stack_id).values())
    driver.rotate_ca_certificate(resources, view(newer))
    for sid in (stack_id, ng_stack):
        stack = wait(heat, sid)
        assert stack.stack_status == "UPDATE_COMPLETE", stack.stack_status_reason
    stack = heat.stacks.get(stack_id)
    assert (stack.parameters["master_generation"], stack.parameters["kube_tag"]) == (
        "2", "v1.32.1")
    if resources.url_for("compute"):
        assert not (before & set(_servers(heat, stack_id).values()))

    # Delete: node group stacks first, then the cluster's; both end up gone.
    driver.delete_cluster(resources, view())
    for sid in (ng_stack, stack_id):
        stack = wait(heat, sid)
        assert stack.stack_status == "DELETE_COMPLETE", stack.stack_status_reason
    assert stack_ops.find(heat, stack_id) is None
    driver.delete_cluster(resources, view())  # deleting again is not an error
