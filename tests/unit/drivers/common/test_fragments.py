"""Node bootstrap fragments: shellcheck-clean, and every setting they read is provided."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from drivers.heat import bootstrap, parameters
from drivers.k8s_fedora_coreos_v1.driver import Driver
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support

FRAGMENTS = bootstrap.fragment_paths()
# ${NAME} / $NAME of upper-case settings; ${NAME:-default} reads are optional.
_REQUIRED = re.compile(r"\$\{?([A-Z][A-Z0-9_]*)(?![A-Z0-9_]*:-)\}?")
_LOCAL = re.compile(r"^\s*(?:readonly\s+)?([A-Z][A-Z0-9_]*)=", re.M)
_BASH = {"HOME", "PATH", "BASH_SOURCE"}


def test_fragments_exist_in_run_order():
    names = [p.name for p in FRAGMENTS]
    assert "magnum-bootstrap.sh" in names and "lib.sh" in names
    steps = [n for n in names if n[:2].isdigit()]
    assert steps == sorted(steps) and len(steps) >= 7


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="the shellcheck binary is absent")
def test_fragments_are_shellcheck_clean():
    result = subprocess.run(["shellcheck", "-x", "--severity=style",
                             *[p.name for p in FRAGMENTS]],
                            cwd=bootstrap.FRAGMENTS_DIR, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


_QUOTED_HEREDOC = re.compile(r"<<-?'(\w+)'\n.*?\n\1\n", re.S)


def _bash_text(path) -> str:
    """A fragment without its quoted heredocs (fixed text: systemd's references, not ours)."""
    return _QUOTED_HEREDOC.sub("", path.read_text())


def _required_settings() -> dict[str, set[str]]:
    local = set()
    for path in FRAGMENTS:
        local |= set(_LOCAL.findall(path.read_text()))
    wanted = {}
    for path in FRAGMENTS:
        text = _bash_text(path)
        refs = set(_REQUIRED.findall(text)) - local - _BASH
        # Heredoc-escaped references (\$(NODE_NAME)) belong to Kubernetes, not to us.
        refs -= set(re.findall(r"\\\$\(?([A-Z_]+)", text))
        wanted[path.name] = refs
    return wanted


COMBINATIONS = [
    dict(network_driver="flannel"),
    dict(network_driver="calico", labels={"calico_ipv4pool_ipip": "Always"}),
    dict(tls_disabled=True),
    dict(volume_driver="cinder", labels={"cinder_csi_enabled": "true"}),
    dict(labels={"ingress_controller": "nginx", "auto_scaling_enabled": "true"}),
    dict(labels={"ingress_controller": "octavia", "auto_healing_enabled": "true",
                 "auto_healing_controller": "magnum-auto-healer"}),
    dict(labels={"ingress_controller": "traefik", "auto_healing_enabled": "true",
                 "keystone_auth_enabled": "false", "kube_dashboard_enabled": "true"}),
    dict(labels={"cert_manager_api": "true", "cloud_provider_enabled": "false"},
         trust=False),
    dict(http_proxy="http://proxy:3128", no_proxy="localhost", insecure_registry="reg:5000"),
]


@pytest.mark.parametrize("combo", COMBINATIONS, ids=lambda c: "-".join(
    f"{k}" for k in c) + "-" + "-".join(sorted(c.get("labels", {}))))
@pytest.mark.parametrize("role", ["master", "worker"])
def test_every_setting_a_fragment_reads_is_provided(combo, role):
    combo = dict(combo)
    trust = combo.pop("trust", True)
    labels = combo.pop("labels", {})
    ct = support.template(labels=labels, **combo)
    cl = support.cluster(ct)
    ngs = support.default_nodegroups(cl, 1, 1)
    res = support.Resources(trust_id="t" if trust else None,
                            catalog={"identity": "http://ks:5000/v3",
                                     "container-infra": "http://m:9511",
                                     "load-balancer": "http://lb:9876"})
    p = parameters.cluster_parameters(res, Driver.profile, ClusterView.of(cl, ct, ngs), None)
    env = parameters.decode_env(p[f"{role}_bootstrap_env"])
    runtime = set(bootstrap.RUNTIME_KEYS) | (
        set(bootstrap.MASTER_RUNTIME_KEYS) if role == "master" else set())
    provided = set(env) | runtime
    for fragment, wanted in _required_settings().items():
        missing = wanted - provided
        if role == "worker" and fragment in {"40-etcd.sh", "50-control-plane.sh",
                                             "70-addons.sh"}:
            continue  # master-only steps exit before reading master settings
        if role == "worker" and fragment == "30-certificates.sh":
            missing -= set(bootstrap.MASTER_RUNTIME_KEYS)
        assert not missing, f"{fragment} reads unset {sorted(missing)}"


def _bash(script: str, env: dict[str, str]) -> str:
    """Run ``script`` in bash from the fragments directory with exactly ``env`` set."""
    result = subprocess.run(["bash", "-c", script], cwd=bootstrap.FRAGMENTS_DIR, env={
        "PATH": "/usr/bin:/bin", **env}, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("tls_disabled", [False, True])
def test_nodes_reach_the_api_over_tls_whether_or_not_the_template_disables_it(tls_disabled):
    """Kubelets authenticate with certificates, which the plain-HTTP port cannot carry."""
    ct = support.template(tls_disabled=tls_disabled, master_lb_enabled=True)
    cl = support.cluster(ct)
    p = parameters.cluster_parameters(support.Resources(), Driver.profile, ClusterView.of(
        cl, ct, support.default_nodegroups(cl)), None)
    env = parameters.decode_env(p["worker_bootstrap_env"])
    url = _bash(". ./lib.sh; api_server_url", dict(env, API_PRIVATE_ADDRESS="127.0.10.9"))
    assert url.strip() == f"https://127.0.10.9:{parameters.API_TLS_PORT}"


def test_aggregated_apis_get_a_front_proxy_identity_the_api_server_trusts():
    """metrics-server is an aggregated API: the API server must forward with a client
    certificate whose name its --requestheader-allowed-names accepts."""
    control_plane = (bootstrap.FRAGMENTS_DIR / "50-control-plane.sh").read_text()
    certificates = (bootstrap.FRAGMENTS_DIR / "30-certificates.sh").read_text()
    allowed = re.search(r"--requestheader-allowed-names=(\S+)", control_plane).group(1)
    cert = re.search(r"--proxy-client-cert-file=\$PKI_DIR/(\S+)\.crt", control_plane).group(1)
    key = re.search(r"--proxy-client-key-file=\$PKI_DIR/(\S+)\.key", control_plane).group(1)
    assert cert == key
    issued = re.search(rf"^issue_cert {re.escape(cert)} (\S+) ", certificates, re.M)
    assert issued and issued.group(1) in allowed.split(",")
    assert "--requestheader-client-ca-file=$PKI_DIR/ca.crt" in control_plane
