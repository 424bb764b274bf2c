"""Rendering: every driver x cluster shape gives valid HOT with the expected resources."""

from __future__ import annotations

import dataclasses
import itertools
import json

import pytest
import yaml

from drivers.heat import bootstrap, outputs, parameters, renderer
from drivers.heat.parameters import Features
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support

DRIVERS = ["k8s_fedora_coreos_v1", "k8s_ubuntu_v1", "k8s_fedora_atomic_v1"]

# (network driver, master LB, floating IPs, existing network, volume driver, masters)
SHAPES = list(itertools.product(["flannel", "calico"], [False, True], [False, True],
                                [False, True], ["cinder", None], [1, 3]))


def _yaml(text: str):
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


@pytest.fixture(scope="module")
def sa_keys():
    return parameters.ServiceAccountKeys.generate()


def _rows(network_driver, lb, fip, existing, volume_driver, masters, **labels):
    ct = support.template(network_driver=network_driver, master_lb_enabled=lb,
                          floating_ip_enabled=fip, volume_driver=volume_driver,
                          fixed_network="net" if existing else None,
                          fixed_subnet="subnet" if existing else None,
                          labels=dict(labels))
    cl = support.cluster(ct, docker_volume_size=10 if volume_driver else None)
    return ct, cl, support.default_nodegroups(cl, masters, 2)


def _params_of(text: str) -> set[str]:
    return set(_yaml(text)["parameters"])


@pytest.mark.parametrize("driver_name", DRIVERS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "-".join(map(str, s)))
def test_cluster_template_renders_for_every_shape(driver_name, shape, sa_keys):
    network_driver, lb, fip, existing, volume_driver, masters = shape
    ct, cl, ngs = _rows(*shape, etcd_volume_size="2" if masters == 1 else "0")
    driver = registry.all_drivers()[driver_name]
    profile = driver.profile
    feats = parameters.features(ClusterView.of(cl, ct, ngs))
    rendered = renderer.render_cluster(driver_name, feats)
    hot = _yaml(rendered.template)
    assert str(hot["heat_template_version"]) == "2021-04-16"
    res = hot["resources"]
    assert ("private_network" in res) is (not existing)
    assert ("extrouter_inside" in res) is (not existing)
    assert ("api_lb" in res) is lb and ("api_pool" in res) is lb
    assert ("api_lb_floating" in res) is (lb and fip)
    assert res["kube_masters"]["properties"]["resource_def"]["type"] == "master.yaml"
    assert res["kube_masters"]["update_policy"]["rolling_update"]["max_batch_size"] == {
        "get_param": "update_max_batch_size"}
    assert res["default_worker"]["type"] == "nodegroup.yaml"
    assert {"api_address", "kube_masters", "kube_masters_private", "kube_minions",
            "kube_minions_private"} <= set(hot["outputs"])
    master = _yaml(rendered.files["master.yaml"])["resources"]
    worker = _yaml(rendered.files["worker.yaml"])["resources"]
    group = _yaml(rendered.files["nodegroup.yaml"])["resources"]["kube_minions"]
    assert group["properties"]["removal_policies"] == [
        {"resource_list": {"get_param": "minions_to_remove"}}]
    for node in (master, worker):
        assert node["wait_condition"]["type"] == "OS::Heat::WaitCondition"
        assert node["wait_handle"]["type"] == "OS::Heat::WaitConditionHandle"
        assert node["wait_condition"]["properties"]["handle"] == {"get_resource": "wait_handle"}
        assert node["wait_condition"]["depends_on"] == "server"
        assert node["server"]["properties"]["user_data_format"] == "RAW"
        assert ("floating_ip" in node) is fip
        assert ("docker_volume" in node) is bool(volume_driver)
        assert not any(r["type"].startswith("OS::Heat::Software") for r in node.values())
    assert ("etcd_volume" in master) is (masters == 1)
    assert ("api_pool_member" in master) is lb
    # The parameters we build are exactly what the templates declare (Heat refuses others).
    p = parameters.cluster_parameters(support.Resources(), profile, ClusterView.of(cl, ct, ngs),
                                      sa_keys)
    assert set(p) <= _params_of(rendered.template)


@pytest.mark.parametrize("driver_name", DRIVERS)
def test_nodegroup_template_declares_exactly_the_parameters_built(driver_name):
    ct, cl, ngs = _rows("flannel", False, True, False, "cinder", 1)
    ng = support.nodegroup(cl, "extra", "worker", 2, False, docker_volume_size=5)
    rendered = renderer.render_nodegroup(driver_name,
                                         parameters.features(ClusterView.of(cl, ct, ngs), ng))
    outputs = {"fixed_network": "n", "fixed_subnet": "s", "worker_security_group": "g",
               "api_private_address": "127.0.0.3"}
    view = ClusterView.of(cl, ct, ngs + [ng])
    p = parameters.nodegroup_parameters(support.Resources(),
                                        registry.all_drivers()[driver_name].profile,
                                        view, view.nodegroups[-1], outputs)
    declared = _params_of(rendered.template)
    assert set(p) <= declared
    assert {k for k, v in _yaml(rendered.template)["parameters"].items()
            if "default" not in v} <= set(p)
    assert "docker_volume" in _yaml(rendered.files["worker.yaml"])["resources"]
    # The nested default worker group receives the same parameter set from the cluster.
    cluster = _yaml(renderer.render_cluster(
        driver_name, parameters.features(ClusterView.of(cl, ct, ngs))).template)
    assert set(cluster["resources"]["default_worker"]["properties"]) <= declared


@pytest.mark.parametrize("driver_name", DRIVERS)
def test_rendering_is_deterministic_and_cached(driver_name):
    f = Features(master_lb=True, floating_ip=True, lb_floating_ip=True)
    first = renderer.render_cluster(driver_name, f)
    renderer.render_cluster.cache_clear()
    again = renderer.render_cluster(driver_name, dataclasses.replace(f))
    assert first == again
    assert renderer.render_cluster(driver_name, f) is renderer.render_cluster(driver_name, f)
    assert renderer.TEMPLATE_VERSION in first.template


def _node_user_data_params(text: str) -> set[str]:
    server = _yaml(text)["resources"]["server"]
    return set(server["properties"]["user_data"]["str_replace"]["params"])


@pytest.mark.parametrize("role", ["master", "worker"])
def test_every_runtime_placeholder_is_filled_by_the_node_template(role):
    rendered = renderer.render_cluster("k8s_ubuntu_v1", Features())
    filled = _node_user_data_params(rendered.files[f"{role}.yaml"])
    wanted = {f"@@{k}@@" for k in bootstrap.runtime_env(role).replace("=", "\n").split("\n")
              if k and not k.startswith("@@")}
    assert wanted | {"@@BOOTSTRAP_ENV@@"} == filled
    user_data = rendered.files[f"userdata-{role}"]
    for placeholder in filled:
        assert placeholder in user_data


def test_fedora_coreos_user_data_is_an_ignition_config():
    rendered = renderer.render_cluster("k8s_fedora_coreos_v1", Features())
    config = json.loads(rendered.files["userdata-master"])
    assert config["ignition"]["version"].startswith("3.")
    paths = {f["path"] for f in config["storage"]["files"]}
    assert {"/usr/local/bin/magnum-bootstrap", "/etc/magnum/bootstrap.env",
            "/etc/magnum/runtime.env"} <= paths
    assert len([p for p in paths if p.startswith(bootstrap.FRAGMENTS_PATH)]) == len(
        bootstrap.fragment_paths()) - 1
    assert not any(p.endswith(".service") for p in paths)
    unit = config["systemd"]["units"][0]
    assert unit["enabled"] and "ExecStart=/usr/local/bin/magnum-bootstrap" in unit["contents"]


@pytest.mark.parametrize("driver_name,package", [("k8s_ubuntu_v1", True),
                                                  ("k8s_fedora_atomic_v1", False)])
def test_cloud_init_user_data(driver_name, package):
    rendered = renderer.render_cluster(driver_name, Features())
    text = rendered.files["userdata-worker"]
    assert text.startswith("#cloud-config\n")
    config = _yaml(text.replace("@@BOOTSTRAP_ENV@@", "QUJD"))
    assert ("containerd" in config.get("packages", [])) is package
    paths = {f["path"] for f in config["write_files"]}
    assert "/etc/systemd/system/magnum-bootstrap.service" in paths
    runtime = next(f for f in config["write_files"] if f["path"] == "/etc/magnum/runtime.env")
    assert "WAIT_TOKEN=@@WAIT_TOKEN@@" in runtime["content"]
    assert "KUBE_SA_KEY" not in runtime["content"]
    assert ["systemctl", "enable", "--now", "--no-block", "magnum-bootstrap.service"] in \
        config["runcmd"]


@pytest.mark.parametrize("driver_name", DRIVERS)
def test_filled_user_data_fits_novas_64k_limit(driver_name, sa_keys):
    """Nova refuses user data over 65535 bytes once base64-encoded."""
    ct, cl, ngs = _rows("calico", True, True, False, "cinder", 3,
                        cert_manager_api="true", kubelet_options="--v=2 " * 40)
    view = ClusterView.of(cl, ct, ngs)
    p = parameters.cluster_parameters(support.Resources(), registry.all_drivers()[
        driver_name].profile, view, sa_keys)
    rendered = renderer.render_cluster(driver_name, parameters.features(view))
    text = rendered.files["userdata-master"]
    values = {"BOOTSTRAP_ENV": p["master_bootstrap_env"], "KUBE_SA_KEY": sa_keys.public,
              "KUBE_SA_PRIVATE_KEY": sa_keys.private, "WAIT_TOKEN": "t" * 300,
              "WAIT_ENDPOINT": "https://heat.example.com:8004/v1/" + "x" * 200}
    for key in bootstrap.RUNTIME_KEYS + bootstrap.MASTER_RUNTIME_KEYS + ("BOOTSTRAP_ENV",):
        text = text.replace(f"@@{key}@@", values.get(key, "x" * 64))
    assert len(__import__("base64").b64encode(text.encode())) <= 65535


def test_security_groups_stay_within_a_small_rule_budget():
    """Neutron's default quota is 100 rules per project; one cluster uses few of them."""
    res = _yaml(renderer.render_cluster("k8s_ubuntu_v1", Features()).template)["resources"]
    inline = sum(len(r["properties"]["rules"]) for r in res.values()
                 if r["type"] == "OS::Neutron::SecurityGroup")
    separate = [r for r in res.values() if r["type"] == "OS::Neutron::SecurityGroupRule"]
    assert inline + len(separate) <= 20
    pairs = {(r["properties"]["security_group"]["get_resource"],
              r["properties"].get("remote_group", {}).get("get_resource")) for r in separate}
    assert ("secgroup_kube_minion", "secgroup_kube_minion") in pairs  # worker <-> worker VXLAN


@pytest.mark.parametrize("tls_disabled", [False, True])
def test_api_lb_carries_the_port_api_address_names_and_the_nodes_tls_port(tls_disabled):
    """Clients use api_address (plain HTTP 8080 when TLS is off); nodes always use 6443."""
    ct = support.template(master_lb_enabled=True, floating_ip_enabled=True,
                          tls_disabled=tls_disabled)
    cl = support.cluster(ct, stack_id="s1")
    ngs = support.default_nodegroups(cl, 3, 2)
    feats = parameters.features(ClusterView.of(cl, ct, ngs))
    rendered = renderer.render_cluster("k8s_fedora_coreos_v1", feats)
    res = _yaml(rendered.template)["resources"]
    p = parameters.cluster_parameters(support.Resources(), registry.all_drivers()[
        "k8s_fedora_coreos_v1"].profile, ClusterView.of(cl, ct, ngs), None)

    def value(ref):
        return p[ref["get_param"]] if isinstance(ref, dict) else ref

    listeners = {value(r["properties"]["protocol_port"]): (name, value(r["properties"]["protocol"]))
                 for name, r in res.items() if r["type"] == "OS::Octavia::Listener"}
    pools = {r["properties"]["listener"]["get_resource"]: name
             for name, r in res.items() if r["type"] == "OS::Octavia::Pool"}
    monitored = {r["properties"]["pool"]["get_resource"]
                 for r in res.values() if r["type"] == "OS::Octavia::HealthMonitor"}
    # The client listener is on the port the row's api_address will carry ...
    api_address = outputs.api_url("127.24.4.50", tls_disabled)
    client_port = int(api_address.rsplit(":", 1)[1])
    assert api_address.startswith("http://" if tls_disabled else "https://")
    assert listeners[client_port] == ("api_listener", "HTTP" if tls_disabled else "TCP")
    # ... and the nodes' TLS port is always served, with a pool and a monitor behind each.
    assert listeners[6443][1] == "TCP"
    assert set(listeners) == ({8080, 6443} if tls_disabled else {6443})
    assert set(pools) == {name for name, _ in listeners.values()}
    assert monitored == set(pools.values())
    # Every master joins every pool on the port its listener serves.
    master = _yaml(rendered.files["master.yaml"])
    passed = res["kube_masters"]["properties"]["resource_def"]["properties"]
    member_ports = {}
    for r in master["resources"].values():
        if r["type"] == "OS::Octavia::PoolMember":
            pool = passed[r["properties"]["pool"]["get_param"]]["get_resource"]
            port = r["properties"]["protocol_port"]
            if isinstance(port, dict):  # a master parameter the cluster passes on
                port = value(passed[port["get_param"]])
            member_ports[pool] = port
    assert member_ports == {pools[name]: port for port, (name, _) in listeners.items()}
    # Workers reach the API through the LB's private address, on the TLS port.
    assert res["default_worker"]["properties"]["api_private_address"] == {
        "get_attr": ["api_lb", "vip_address"]}
    master_rules = {(r.get("port_range_min"), r.get("port_range_max"))
                    for r in res["secgroup_kube_master"]["properties"]["rules"]}
    assert (6443, 6443) in master_rules
    assert ((8080, 8080) in master_rules) is tls_disabled
