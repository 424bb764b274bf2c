"""The add-ons the first master applies, rendered from the labels through 70-addons.sh.

The script runs for real in bash with the settings the driver builds; only its effects are
replaced (applying to the cluster, calling helm, touching the host's directories), so the
tests see exactly what a node would apply for the given labels.
"""

from __future__ import annotations

import subprocess

import pytest
import yaml

from drivers.heat import bootstrap, labels, parameters
from drivers.k8s_fedora_coreos_v1.driver import Driver
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support

# Effects recorded instead of performed: "URL <manifest url>", "HELM <args>", manifests
# between "--- applied" markers, "HELM-CLIENT <url> <sha256>".
HARNESS = r"""
. ./70-addons.sh
apply_url() { echo "URL $1"; }
apply_text() { echo "--- applied"; cat; echo; }
kubectl_admin() { echo "{kind: Secret, metadata: {name: $6}}"; }  # create secret generic NAME
helm_admin() { echo "HELM $*"; }
install_helm() { echo "HELM-CLIENT $(helm_client_url) ${HELM_CLIENT_SHA256:-}"; }
mkdir() { :; }
touch() { :; }
main
"""


def _master_env(worker_kw: dict | None = None, **label_values: str) -> dict[str, str]:
    ct = support.template(labels=dict(label_values))
    cl = support.cluster(ct)
    ngs = [support.nodegroup(cl, "default-master", "master", 1, True),
           support.nodegroup(cl, "default-worker", "worker", 2, True, **(worker_kw or {}))]
    p = parameters.cluster_parameters(support.Resources(), Driver.profile,
                                      ClusterView.of(cl, ct, ngs), None)
    env = parameters.decode_env(p["master_bootstrap_env"])
    env.update({"NODE_INDEX": "0", "NODE_NAME": "m-0", "NODE_IP": "127.0.10.4",
                "API_PRIVATE_ADDRESS": "127.0.10.3", "KEYSTONE_AUTH_ENABLED": "false"})
    return env


def _run(env: dict[str, str]) -> str:
    result = subprocess.run(["bash", "-c", HARNESS], cwd=bootstrap.FRAGMENTS_DIR,
                            env={"PATH": "/usr/bin:/bin", **env}, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def _applied(out: str) -> list[dict]:
    docs = []
    for chunk in out.split("--- applied\n")[1:]:
        text = "\n".join(line for line in chunk.splitlines()
                         if not line.startswith(("URL ", "HELM")))
        docs += [d for d in yaml.safe_load_all(text) if d]
    return docs


def _one(docs: list[dict], kind: str, name: str) -> dict:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind}/{name}: {len(found)} found"
    return found[0]


def _grants(role: dict) -> set[tuple[str, str, str]]:
    return {(group, resource, verb) for rule in role["rules"] for group in rule["apiGroups"]
            for resource in rule["resources"] for verb in rule["verbs"]}


# --- ingress: Traefik ------------------------------------------------------------------

def test_traefik_is_deployed_as_a_working_ingress_controller():
    out = _run(_master_env(ingress_controller="traefik",
                           traefik_ingress_controller_tag="v3.1.6",
                           ingress_controller_role="edge"))
    assert "traefik" not in "".join(line for line in out.splitlines() if line.startswith("URL"))
    docs = _applied(out)
    ingress_class = _one(docs, "IngressClass", "traefik")
    assert ingress_class["spec"]["controller"] == "traefik.io/ingress-controller"
    assert ingress_class["metadata"]["annotations"][
        "ingressclass.kubernetes.io/is-default-class"] == "true"

    ds = _one(docs, "DaemonSet", "traefik-ingress-controller")
    pod = ds["spec"]["template"]["spec"]
    container = pod["containers"][0]
    assert container["image"] == "docker.io/library/traefik:v3.1.6"
    assert "--providers.kubernetesingress=true" in container["args"]
    entrypoints = {a.split("=")[0].split(".")[1]: int(a.rsplit(":", 1)[1])
                   for a in container["args"] if a.endswith(tuple("0123456789"))
                   and a.startswith("--entryPoints.")}
    ports = {p["hostPort"]: p["containerPort"] for p in container["ports"]}
    assert ports == {80: entrypoints["web"], 443: entrypoints["websecure"]}
    assert container["readinessProbe"]["httpGet"]["port"] == entrypoints["traefik"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"]
    assert {(e["key"], tuple(e["values"])) for t in terms for e in t["matchExpressions"]} == {
        ("role", ("edge",)), ("magnum.openstack.org/role", ("edge",))}

    account = _one(docs, "ServiceAccount", "traefik-ingress-controller")
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    binding = _one(docs, "ClusterRoleBinding", "magnum:traefik-ingress-controller")
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": "traefik-ingress-controller",
                                    "namespace": account["metadata"]["namespace"]}]
    grants = _grants(_one(docs, "ClusterRole", binding["roleRef"]["name"]))
    assert {verb for _, _, verb in grants} <= {"get", "list", "watch"}
    for group, resource in [("networking.k8s.io", "ingresses"),
                            ("networking.k8s.io", "ingressclasses"), ("", "services"),
                            ("", "endpoints"), ("discovery.k8s.io", "endpointslices"),
                            ("", "secrets")]:
        assert {(group, resource, "list"), (group, resource, "watch")} <= grants


def test_traefik_follows_the_operator_registry_and_is_absent_unless_asked():
    out = _run(_master_env(ingress_controller="traefik", container_infra_prefix="reg.example/k8s/"))
    ds = _one(_applied(out), "DaemonSet", "traefik-ingress-controller")
    image = ds["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image == "reg.example/k8s/traefik:" + labels.LABELS[
        "traefik_ingress_controller_tag"].default
    assert not [d for d in _applied(_run(_master_env())) if d["kind"] == "IngressClass"]


# --- metrics-server --------------------------------------------------------------------

def _helm_calls(out: str) -> list[list[str]]:
    return [line.split()[1:] for line in out.splitlines() if line.startswith("HELM ")]


@pytest.mark.parametrize("chart", ["3.12.2", "3.11.0", "v3.8.4"])
def test_metrics_server_chart_follows_the_label(chart):
    out = _run(_master_env(metrics_server_chart_tag=chart))
    [call] = _helm_calls(out)
    assert call[:4] == ["upgrade", "--install", "metrics-server", "metrics-server"]
    assert call[call.index("--repo") + 1] == "https://kubernetes-sigs.github.io/metrics-server/"
    assert call[call.index("--version") + 1] == chart.removeprefix("v")
    assert call[call.index("--namespace") + 1] == "kube-system"
    assert not [line for line in out.splitlines() if "metrics-server" in line
                and line.startswith("URL")]


def test_metrics_server_image_comes_from_the_operator_registry_when_one_is_set():
    [call] = _helm_calls(_run(_master_env(container_infra_prefix="reg.example/k8s/")))
    assert call[call.index("--set") + 1] == "image.repository=reg.example/k8s/metrics-server"


def test_metrics_server_disabled_installs_neither_helm_nor_the_chart():
    out = _run(_master_env(metrics_server_enabled="false"))
    assert not _helm_calls(out) and "HELM-CLIENT" not in out


@pytest.mark.parametrize("given,expected_url,expected_sum", [
    ({}, "https://get.helm.sh/helm-v3.16.3-linux-amd64.tar.gz",
     parameters.HELM_CLIENT_SHA256["v3.16.3"]),
    ({"helm_client_tag": "v3.15.4"}, "https://get.helm.sh/helm-v3.15.4-linux-amd64.tar.gz", ""),
    ({"helm_client_tag": "v3.15.4", "helm_client_sha256": "ab" * 32},
     "https://get.helm.sh/helm-v3.15.4-linux-amd64.tar.gz", "ab" * 32),
    ({"helm_client_url": "https://mirror.example/helm.tgz"}, "https://mirror.example/helm.tgz",
     ""),
])
def test_helm_client_follows_the_labels(given, expected_url, expected_sum):
    assert labels.LABELS["helm_client_tag"].default == "v3.16.3"
    [line] = [line for line in _run(_master_env(**given)).splitlines()
              if line.startswith("HELM-CLIENT")]
    assert line.split()[1:] == [expected_url] + ([expected_sum] if expected_sum else [])


# --- cluster autoscaler ----------------------------------------------------------------

AUTOSCALER_NEEDS = {
    ("", "events", "create"), ("", "events", "patch"), ("", "pods/eviction", "create"),
    ("", "pods/status", "update"), ("", "nodes", "update"),
    *{("", r, v) for r in ("nodes", "pods", "namespaces", "services", "replicationcontrollers",
                           "persistentvolumes", "persistentvolumeclaims")
      for v in ("get", "list", "watch")},
    *{("apps", r, "list") for r in ("daemonsets", "replicasets", "statefulsets")},
    *{("batch", r, "list") for r in ("jobs", "cronjobs")},
    ("policy", "poddisruptionbudgets", "list"),
    *{("storage.k8s.io", r, "list") for r in ("storageclasses", "csinodes", "csidrivers",
                                               "csistoragecapacities")},
}


def test_autoscaler_has_least_privilege_instead_of_cluster_admin():
    docs = _applied(_run(_master_env(auto_scaling_enabled="true")))
    bindings = [d for d in docs if d["kind"] in ("ClusterRoleBinding", "RoleBinding")]
    assert not [b for b in bindings if b["roleRef"]["name"] == "cluster-admin"]

    def bound(kind: str) -> dict:
        [binding] = [b for b in bindings if b["kind"] == kind + "Binding"
                     and {"kind": "ServiceAccount", "name": "cluster-autoscaler",
                          "namespace": "kube-system"} in b["subjects"]]
        assert binding["roleRef"]["kind"] == kind
        return _one(docs, kind, binding["roleRef"]["name"])

    cluster_role, role = bound("ClusterRole"), bound("Role")
    grants = _grants(cluster_role)
    assert AUTOSCALER_NEEDS <= grants
    assert not [g for g in grants if "*" in g]
    assert not [g for g in grants if g[1] in ("secrets", "configmaps", "leases")]
    assert {verb for group, _, verb in grants if group != ""} <= {"get", "list", "watch"}
    # Its status configmap and leader lease, in kube-system only, the writes by name.
    assert role["metadata"]["namespace"] == "kube-system"
    named = {(rule["resources"][0], verb, name) for rule in role["rules"]
             for verb in rule["verbs"] for name in rule.get("resourceNames", [])}
    assert {("configmaps", "update", "cluster-autoscaler-status"),
            ("leases", "update", "cluster-autoscaler"),
            ("leases", "get", "cluster-autoscaler")} <= named
    assert ("coordination.k8s.io", "leases", "create") in _grants(role)
    assert not [g for g in _grants(role) if g[2] in ("update", "delete", "patch")
                and not any(g[1] in r["resources"] and g[2] in r["verbs"]
                            and r.get("resourceNames") for r in role["rules"])]


@pytest.mark.parametrize("worker,given,expected", [
    ({"min_node_count": 1, "max_node_count": 7}, {}, "1:7"),
    ({"min_node_count": 0, "max_node_count": None}, {"max_node_count": "5"}, "0:5"),
    ({"min_node_count": 0, "max_node_count": None}, {}, "0:3"),  # count 2, one more
])
def test_autoscaler_scales_the_default_workers_not_the_masters(worker, given, expected):
    env = _master_env(worker, auto_scaling_enabled="true", **given)
    deployment = _one(_applied(_run(env)), "Deployment", "cluster-autoscaler")
    command = deployment["spec"]["template"]["spec"]["containers"][0]["command"]
    assert f"--nodes={expected}:default-worker" in command
    assert "--cloud-provider=magnum" in command and env["NODEGROUP_NAME"] == "default-master"


def test_autoscaler_gets_the_trustee_credentials_even_without_the_cloud_provider():
    docs = _applied(_run(_master_env(auto_scaling_enabled="true",
                                     cloud_provider_enabled="false")))
    deployment = _one(docs, "Deployment", "cluster-autoscaler")
    [volume] = deployment["spec"]["template"]["spec"]["volumes"]
    assert _one(docs, "Secret", volume["secret"]["secretName"])
