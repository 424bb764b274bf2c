"""The grammar of node-facing fields, enforced by the real API before anything is recorded.

The Kubernetes driver is the one installed here (its label table decides what known labels
accept). Every hostile string of the corpus is refused with a 400 naming the field, and
the rows and the broker saw nothing; what real clients send is accepted as before.
"""

from __future__ import annotations

import pytest
from oslo_config import cfg

from drivers.k8s_fedora_coreos_v1.driver import Driver
from magnum_common.db.cluster_templates import cluster_templates
from magnum_common.db.clusters import clusters
from magnum_common.db.nodegroups import nodegroups
from magnum_common.drivers import registry
from magnum_common.drivers.view import ClusterView
from tests.functional.api import support
from tests.functional.api.conftest import headers
from tests.functional.api.test_api_clusters import complete

HOSTILE = ["$(touch /tmp/pwned)", "`id`", "a;b", "a|b", "a&&b", "{{ 7*7 }}", "{% raw %}",
           "x\nExecStartPre=/bin/sh -c id", "x\r\ny", "nul\x00byte", "%n%i", "'q'", '"dq"',
           "back\\slash", "\u2028"]
#: The corpus entries every free-text OpenStack reference refuses (they may name anything
#: else: Glance, Nova and Neutron decide whether it exists).
CONTROL = [v for v in HOSTILE if any(ord(c) < 32 or c == "\u2028" for c in v)]

TEMPLATE_FIELDS = {"keypair_id": HOSTILE, "docker_storage_driver": HOSTILE,
                   "http_proxy": HOSTILE, "https_proxy": HOSTILE, "no_proxy": HOSTILE,
                   "insecure_registry": HOSTILE, "image_id": CONTROL,
                   "fixed_subnet": CONTROL, "fixed_network": CONTROL,
                   "external_network_id": CONTROL}
CLUSTER_FIELDS = {"keypair": HOSTILE, "discovery_url": HOSTILE, "fixed_subnet": CONTROL}
NODEGROUP_FIELDS = {"name": HOSTILE, "role": HOSTILE, "image_id": CONTROL}


@pytest.fixture(autouse=True)
def real_driver(monkeypatch):
    driver = Driver()
    monkeypatch.setattr(registry, "_extensions", lambda: {"k8s_fedora_coreos_v1": driver})
    return driver


def _template_body(**fields):
    return {"coe": "kubernetes", "image_id": support.IMAGE_ID, "flavor_id": "m1.small",
            "master_flavor_id": "m1.medium", "external_network_id": "public",
            "labels": {"kube_tag": "v1.31.4"}, **fields}


def _refused(resp, field: str, value: object = "") -> None:
    assert resp.status_int == 400, resp.text
    if "\x00" in str(value):  # the body layer refuses NUL in any string, before any field
        return
    assert f"field/attribute {field}." in resp.json["errors"][0]["detail"], resp.text


def _rows() -> tuple[int, int, int]:
    return (len(cluster_templates.list(None)), len(clusters.list(None)),
            len(nodegroups.list(None)))


@pytest.fixture
def cluster(api, recorder):
    tpl = api.post_json("/v1/clustertemplates", _template_body(), headers=headers()).json
    uuid = api.post_json("/v1/clusters", {"cluster_template_id": tpl["uuid"], "name": "c1"},
                         headers=headers(), status=202).json["uuid"]
    recorder.wait_for("cluster_create")  # a cast arriving after the reset is no test's
    complete(uuid)
    recorder.reset()
    return uuid


@pytest.mark.parametrize("field", sorted(TEMPLATE_FIELDS))
def test_template_fields_refuse_the_hostile_corpus(api, recorder, field):
    before = _rows()
    for value in TEMPLATE_FIELDS[field]:
        resp = api.post_json("/v1/clustertemplates", _template_body(**{field: value}),
                             headers=headers(), expect_errors=True)
        _refused(resp, field, value)
    assert _rows() == before


@pytest.mark.parametrize("labels", [{bad: "x"} for bad in HOSTILE + [
    "Kube_Tag", "bash_env-x", "a.b", "kubernetes.io/x"]] + [{"a": v} for v in CONTROL] + [
    {"kubelet_options": "--v=2 $(id)"}, {"kubeapi_options": "--x='y'"},
    {"coredns_tag": "1.11;id"}, {"container_infra_prefix": "reg/`id`/"},
    {"dns_cluster_domain": "a b"}, {"ingress_controller_role": "edge\"]"},
    {"helm_client_url": "http://x/$(id)"}, {"dns_service_ip": "127.0.0.10;id"}])
def test_labels_refuse_what_a_node_could_interpret(api, recorder, cluster, labels):
    before = _rows()
    resp = api.post_json("/v1/clustertemplates", _template_body(labels=labels),
                         headers=headers(), expect_errors=True)
    assert resp.status_int == 400, resp.text
    tpl = cluster_templates.list(None)[0].uuid
    resp = api.post_json("/v1/clusters", {"cluster_template_id": tpl, "labels": labels},
                         headers=headers(), expect_errors=True)
    assert resp.status_int == 400, resp.text
    resp = api.post_json(f"/v1/clusters/{cluster}/nodegroups",
                         {"name": "ng1", "labels": labels}, headers=headers(),
                         expect_errors=True)
    assert resp.status_int == 400, resp.text
    assert _rows() == before and not recorder.calls


@pytest.mark.parametrize("field", sorted(CLUSTER_FIELDS))
def test_cluster_fields_refuse_the_hostile_corpus(api, recorder, field):
    tpl = api.post_json("/v1/clustertemplates", _template_body(), headers=headers()).json
    before = _rows()
    for value in CLUSTER_FIELDS[field]:
        resp = api.post_json("/v1/clusters", {"cluster_template_id": tpl["uuid"],
                                              field: value},
                             headers=headers(), expect_errors=True)
        _refused(resp, field, value)
    assert _rows() == before and not recorder.calls


@pytest.mark.parametrize("field", sorted(NODEGROUP_FIELDS))
def test_nodegroup_fields_refuse_the_hostile_corpus(api, recorder, cluster, field):
    before = _rows()
    for value in NODEGROUP_FIELDS[field]:
        body = {"name": "ng1", field: value}
        resp = api.post_json(f"/v1/clusters/{cluster}/nodegroups", body, headers=headers(),
                             expect_errors=True)
        _refused(resp, field, value)
    assert _rows() == before and not recorder.calls


@pytest.mark.parametrize("field,value", [
    ("node_labels", {"a": "b,c=d"}), ("node_labels", {"a b": "c"}),
    ("node_labels", {"Example.com/x": "y"}), ("node_labels", {"k": "$(id)"}),
    ("node_taints", [{"key": "k", "value": "v:NoExecute", "effect": "NoSchedule"}]),
    ("node_taints", [{"key": "a;b", "effect": "NoSchedule"}]),
])
def test_node_labels_and_taints_follow_the_kubernetes_grammar(api, recorder, cluster, field,
                                                              value):
    before = _rows()
    resp = api.post_json(f"/v1/clusters/{cluster}/nodegroups", {"name": "ng1", field: value},
                         headers=headers(), expect_errors=True)
    _refused(resp, field)
    url = f"/v1/clusters/{cluster}/nodegroups/default-worker"
    resp = api.patch_json(url, [{"op": "replace", "path": f"/{field}", "value": str(value)}],
                          headers=headers(), expect_errors=True)
    _refused(resp, field)
    assert api.get(url, headers=headers()).json[field] in ({}, [])
    assert _rows() == before and not recorder.calls


def test_template_patch_checks_the_fields_it_changes(api, recorder):
    tpl = api.post_json("/v1/clustertemplates", _template_body(), headers=headers()).json
    url = f"/v1/clustertemplates/{tpl['uuid']}"
    for path, value in (("/http_proxy", "http://p:1;id"), ("/no_proxy", "a|b"),
                        ("/labels", str({"kubelet_options": "--a=$(id)"})),
                        ("/labels", str({"Bad": "x"}))):
        resp = api.patch_json(url, [{"op": "replace", "path": path, "value": value}],
                              headers=headers(), expect_errors=True)
        assert resp.status_int == 400, (path, resp.text)
    row = cluster_templates.get_by_uuid(None, tpl["uuid"])
    assert row.http_proxy is None and row.labels == {"kube_tag": "v1.31.4"}


@pytest.fixture
def nodes_hold_the_trust():
    """A deployment that gives nodes the trust (the cloud provider and CSI labels need it)."""
    cfg.CONF.set_override("cluster_user_trust", True, "trust")
    yield
    cfg.CONF.clear_override("cluster_user_trust", "trust")


def test_what_real_clients_send_is_accepted(api, recorder, nodes_hold_the_trust):
    # openstack coe cluster template create --labels ... (every value a string) with
    # proxies; terraform's labels map; Horizon's launch form (autoscaling, auto healing,
    # floating IP on the API load balancer); Ansible's integer label values.
    tpl = api.post_json("/v1/clustertemplates", _template_body(
        keypair_id="kp", docker_storage_driver="overlay2",
        http_proxy="http://127.0.0.9:8080", https_proxy="http://proxy.example.com:3128",
        no_proxy="localhost,127.0.0.1,.example.com", insecure_registry="127.0.0.5:5000",
        labels={"kube_tag": "v1.31.4", "container_runtime": "containerd",
                "containerd_tarball_sha256": "f" * 64, "cinder_csi_enabled": "true",
                "ingress_controller": "octavia", "master_lb_floating_ip_enabled": "true",
                "cert_manager_api": "True", "kubelet_options": "--max-pods=110 --v=2",
                "monitoring_enabled": "true", "min_node_count": 1,
                "container_infra_prefix": "docker.io/catalystcloud/",
                "clusterautoscale": "nodegroupfeature", "external_subnet_id_list": "a,b"}),
        headers=headers(), status=201).json
    assert tpl["labels"]["min_node_count"] == "1"
    resp = api.post_json("/v1/clusters", {
        "cluster_template_id": tpl["uuid"], "name": "horizon-1", "keypair": "kp",
        "discovery_url": None, "merge_labels": True,
        "labels": {"auto_scaling_enabled": "true", "min_node_count": "1",
                   "max_node_count": "5", "auto_healing_enabled": "true",
                   "my_note": "any text, even $(this) or {{ that }}"}},
        # devstack's demo user: the cloud provider's and the Octavia ingress controller's
        # trust delegates load-balancer_member ([trust] cloud_provider_roles)
        headers={**headers(), "X-Roles": "member,reader,load-balancer_member"},
        status=202).json
    row = clusters.get_by_uuid(None, resp["uuid"])
    assert row.labels["my_note"] == "any text, even $(this) or {{ that }}"
    complete(resp["uuid"])
    ng = api.post_json(f"/v1/clusters/{resp['uuid']}/nodegroups", {
        "name": "gpu-pool", "role": "gpu", "node_count": 1,
        "node_labels": {"workload": "gpu", "example.com/accelerator": "nvidia-a100"},
        "node_taints": [{"key": "gpu", "value": "yes", "effect": "NoSchedule"},
                        {"key": "dedicated", "value": "", "effect": "NoExecute"}]},
        headers=headers(), status=202).json
    assert ng["node_labels"]["example.com/accelerator"] == "nvidia-a100"


@pytest.mark.parametrize("value", HOSTILE + ["cr\ronly", "{{ '' }}{% if 1 %}x{% endif %}",
                                             "[Service]\nExecStartPre=/bin/id"])
def test_the_hostile_corpus_is_refused_or_inert_on_the_node(api, recorder, tmp_path, value):
    """Every entry of the corpus, as label value, label key and node-group name through the
    real API: a 400 that changed nothing, or stored and then inert where a node reads its
    settings (real bash, the node's own ``load_settings``; the canary never runs)."""
    from drivers.heat import parameters
    from tests.unit.drivers import support as driver_support
    from tests.unit.drivers.common import node_harness

    canary = tmp_path / "canary"
    value = value.replace("/tmp/pwned", str(canary))
    before = _rows()
    tpl = api.post_json("/v1/clustertemplates", _template_body(labels={
        "kube_tag": "v1.31.4", "my_note": value}), headers=headers(), expect_errors=True)
    if tpl.status_int == 400:
        assert _rows() == before and not recorder.calls
        return
    assert tpl.status_int == 201, tpl.text
    before = _rows()
    for body in ({"labels": {value: "x"}}, {"name": value}):
        resp = api.post_json("/v1/clusters", {"cluster_template_id": tpl.json["uuid"], **body},
                             headers=headers(), expect_errors=True)
        assert resp.status_int == 400, resp.text
    assert _rows() == before and not recorder.calls
    uuid = api.post_json("/v1/clusters", {"cluster_template_id": tpl.json["uuid"],
                                          "labels": {"other_note": value},
                                          "merge_labels": True},
                         headers=headers(), status=202).json["uuid"]
    recorder.wait_for("cluster_create")
    cl = clusters.get_by_uuid(None, uuid)
    assert cl.labels["my_note"] == value and cl.labels["other_note"] == value
    ct = cluster_templates.get_by_uuid(None, cl.cluster_template_id)
    ngs = clusters.nodegroups_of(None, [uuid])[uuid]
    params = parameters.cluster_parameters(driver_support.Resources(), Driver.profile,
                                           ClusterView.of(cl, ct, ngs), None)
    for role in ("master", "worker"):
        files = node_harness.write_settings(tmp_path, params[f"{role}_bootstrap_env"], {})
        seen = node_harness.exported(tmp_path, files)
        assert not canary.exists()
        assert "MY_NOTE" not in seen and "OTHER_NOTE" not in seen
        assert value not in seen.values()
