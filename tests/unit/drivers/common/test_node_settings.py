"""Tenant strings on their way to a node: data, never code.

What a stack hands a node is replayed with the node's own scripts in a scratch directory
(real bash, real ``systemd-analyze``): the settings files are read back by
``load_settings``, the unit and environment files the fragments write are parsed the way
systemd parses them, the manifests the way YAML does. Properties run over label maps,
node-group names, proxies, node labels and taints that the API's grammar accepts; a canary
command planted in every value that may hold one must never run.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import pathlib
import re
import shlex
import shutil
import subprocess
import tempfile

import pytest
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from drivers.heat import bootstrap, parameters
from drivers.heat import labels as label_table
from drivers.k8s_fedora_coreos_v1.driver import Driver
from magnum_common import exception, grammar
from magnum_common.drivers.view import ClusterView
from tests.unit.drivers import support
from tests.unit.drivers.common import node_harness, systemd_model

PROFILE = Driver.profile
FRAGMENTS = bootstrap.fragment_paths()
# No shrinking: an example takes a few bash runs, and CI time is bounded; a failure is
# reported as drawn.
PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    phases=(Phase.explicit, Phase.reuse, Phase.generate),
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
RUNTIME = {"NODE_NAME": "c-abc-node-0", "NODE_IP": "127.0.10.5",
           "NODE_PUBLIC_IP": "@@NODE_PUBLIC_IP@@",  # a placeholder Heat left: reads as ""
           "API_PRIVATE_ADDRESS": "127.0.10.3", "KUBE_TAG": "v1.31.4", "GENERATION": "0",
           "ETCD_VOLUME_ID": "", "DOCKER_VOLUME_ID": "", "WAIT_ENDPOINT": "",
           "WAIT_TOKEN": "", "NODE_INDEX": "0", "MASTER_IPS": "127.0.10.5,127.0.10.6,127.0.10.7",
           "API_PUBLIC_ADDRESS": "", "KUBE_SA_KEY": "", "KUBE_SA_PRIVATE_KEY": ""}


def _canary(tmp_path) -> tuple[str, str]:
    path = tmp_path / "canary"
    return str(path), f"$(touch {path})`touch {path}`;touch {path}|touch {path}"


def _render(tmp_path, ct_kw=None, cl_kw=None, ng_kw=None, role="worker"):
    """(bootstrap.env blob, expected env) of a cluster's default group of ``role``."""
    ct = support.template(**(ct_kw or {}))
    cl = support.cluster(ct, **(cl_kw or {}))
    worker = {"name": "default-worker", "role": "worker", **(ng_kw or {})}
    ngs = [support.nodegroup(cl, "default-master", "master", 1, True),
           support.nodegroup(cl, worker.pop("name"), worker.pop("role"), 2, True, **worker)]
    p = parameters.cluster_parameters(support.Resources(), PROFILE,
                                      ClusterView.of(cl, ct, ngs), None)
    blob = p[f"{role}_bootstrap_env"]
    return blob, parameters.decode_env(blob)


def _settings_files(tmp_path, blob):
    return node_harness.write_settings(tmp_path, blob, RUNTIME)


# --- the attack of the issue ------------------------------------------------------------

def test_a_hostile_label_map_never_runs_on_a_node(tmp_path):
    """Keys that once became unquoted shell (and interpreter variables) stay off the node."""
    canary, plant = _canary(tmp_path)
    hostile = {"a;t=touch;p=" + canary + ";${t,,} ${p,,};b": "x", "bash_env": canary,
               "path": "/nowhere", "ld_preload": canary, "pythonpath": canary,
               "my_label": plant, "grafana_admin_passwd": plant}
    blob, env = _render(tmp_path, cl_kw={"labels": hostile})
    files = _settings_files(tmp_path, blob)
    seen = node_harness.exported(tmp_path, files)
    assert not (tmp_path / "canary").exists()
    unwanted = {"BASH_ENV", "LD_PRELOAD", "PYTHONPATH", "MY_LABEL", "GRAFANA_ADMIN_PASSWD"}
    assert not unwanted & set(seen)
    assert not any(";" in key for key in seen)
    assert seen == {**env, **{k: ("" if v.startswith("@@") else v) for k, v in RUNTIME.items()}}


@pytest.mark.parametrize("labels", [
    {"kubelet_options": "--v=2\nExecStartPre=/bin/touch /tmp/x"},
    {"kubeapi_options": "--x=$(id)"}, {"coredns_tag": "1.11;id"},
    {"container_infra_prefix": "reg.example/`id`/"}, {"dns_cluster_domain": "a\nb"},
    {"ingress_controller_role": "edge\"]}"}, {"kube_tag": "v1.31.4\"@@"},
])
def test_the_driver_refuses_hostile_values_an_older_row_may_hold(tmp_path, labels):
    with pytest.raises(exception.InvalidParameterValue) as err:
        _render(tmp_path, cl_kw={"labels": labels})
    assert err.value.code == 400 and next(iter(labels)) in str(err.value)


@pytest.mark.parametrize("ng_kw", [{"name": "w;id"}, {"name": "w\nx"}, {"role": "$(id)"},
                                   {"node_labels": {"a": "b,c=d"}},
                                   {"node_taints": [{"key": "k", "value": "v:NoSchedule,x",
                                                     "effect": "NoSchedule"}]}])
def test_the_driver_refuses_hostile_node_group_fields(tmp_path, ng_kw):
    with pytest.raises(exception.InvalidParameterValue):
        _render(tmp_path, ng_kw=ng_kw)


@pytest.mark.parametrize("content", [
    "BASH_ENV=/tmp/evil\n", "PATH=/tmp\n", "LD_PRELOAD=/tmp/x.so\n", "PYTHONSTARTUP=x\n",
    "a;id=1\n", "lower=1\n", "NO_EQUALS_SIGN\n", "A B=1\n", "IFS=x\n",
])
def test_load_settings_refuses_names_an_interpreter_reads_and_malformed_lines(tmp_path,
                                                                              content):
    path = tmp_path / "bootstrap.env"
    path.write_text("GOOD=1\n" + content)
    result = node_harness.run(tmp_path, (path,), "true", check=False)
    assert result.returncode == 97 and "malformed setting" in result.stderr


def test_load_settings_takes_values_verbatim(tmp_path):
    canary, plant = _canary(tmp_path)
    path = tmp_path / "bootstrap.env"
    path.write_text(f"A={plant}\nB='q' \"dq\" \\\\ $HOME\nC=\nD=@@D@@\nE=x=y\n")
    seen = node_harness.exported(tmp_path, (path,))
    assert seen == {"A": plant, "B": "'q' \"dq\" \\\\ $HOME", "C": "", "D": "", "E": "x=y"}
    assert not (tmp_path / "canary").exists()


def test_the_reserved_names_of_the_node_are_those_of_the_grammar():
    text = (bootstrap.FRAGMENTS_DIR / "magnum-bootstrap.sh").read_text()
    case = text[text.index("reserved_name() {"):text.index("return 0 ;;")]
    words = set(re.findall(r"[A-Z][A-Z0-9_]*\*?", case))
    names = {w for w in words if not w.endswith("*")}
    prefixes = {w[:-1] for w in words if w.endswith("*")}
    assert names == set(grammar.INTERPRETER_VARIABLES)
    assert prefixes == set(grammar.INTERPRETER_PREFIXES)


def test_only_labels_the_node_scripts_read_are_exported():
    quoted = re.compile(r"<<-?'(\w+)'\n.*?\n\1\n", re.S)
    text = "".join(quoted.sub("", p.read_text()) for p in FRAGMENTS)
    read = set(re.findall(r"\$\{?([A-Z][A-Z0-9_]*)", text))
    assert {n.upper() for n in label_table.NODE_ENV} == read & {
        n.upper() for n in label_table.LABELS}
    for name in label_table.NODE_ENV:
        assert name in label_table.LABELS
        assert grammar.env_key(name.upper()) is None, name


def test_every_setting_the_driver_writes_is_read_by_a_node_script(tmp_path):
    _, env = _render(tmp_path, ct_kw={"http_proxy": "http://p:3128"})
    text = "".join(p.read_text() for p in FRAGMENTS)
    read = set(re.findall(r"\$\{?!?([A-Z][A-Z0-9_]*)", text)) | {"HTTP_PROXY", "HTTPS_PROXY",
                                                                 "NO_PROXY"}
    assert set(env) <= read, sorted(set(env) - read)


# --- property: accepted values, exact settings, no side effect ---------------------------

def _regex(pattern: re.Pattern) -> st.SearchStrategy[str]:
    return st.from_regex(pattern, fullmatch=True)


_OPTION_RE = re.compile(r"--[a-z][a-z-]{0,12}(=[A-Za-z0-9=,.:/_@%+*<>!^~\[\]-]{0,16})?")
_HOST = _regex(re.compile(r"[a-z]([a-z0-9-]{0,8}[a-z0-9])?(\.[a-z]([a-z0-9-]{0,8}[a-z0-9])?){0,2}"))
_KIND_VALUES = {
    label_table.TAG: _regex(grammar.TAG_RE),
    label_table.VERSION: st.builds("v{}.{}.{}".format, st.integers(1, 1), st.integers(31, 40),
                                   st.integers(0, 20)),
    label_table.BOOL: st.sampled_from(["true", "false", "True", "0", "on"]),
    label_table.INT: st.integers(0, 10**6).map(str),
    label_table.ARGS: st.lists(_regex(_OPTION_RE), max_size=4).map(" ".join),
    label_table.PREFIX: st.one_of(st.just(""), _HOST.map(lambda h: f"{h}:5000/lib/")),
    label_table.URL: _HOST.map(lambda h: f"https://{h}/x.tgz"),
    label_table.SHA256: _regex(re.compile(r"[0-9a-f]{64}")),
    label_table.IP: st.ip_addresses(v=4).map(str),
    label_table.DOMAIN: _HOST,
    label_table.NODE_ROLE: _regex(grammar.K8S_NAME_RE),
    label_table.PLUGINS: st.lists(_regex(re.compile(r"[A-Z][a-z]{1,12}")), min_size=1,
                                  max_size=3).map(",".join),
}


@st.composite
def _known_labels(draw) -> dict[str, str]:
    result = {}
    for name in draw(st.lists(st.sampled_from(sorted(label_table.NODE_ENV)), max_size=8,
                              unique=True)):
        label = label_table.LABELS[name]
        if label.kind == label_table.ENUM:
            value = draw(st.sampled_from(label.choices))
        elif label.kind == label_table.VERSION and label.minimum:
            value = "v3.2.1"
        elif label.kind in _KIND_VALUES:
            value = draw(_KIND_VALUES[label.kind])
        else:
            continue
        if label_table.problem(name, value) is None:
            result[name] = value
    return result


_PRINTABLE = st.text(st.characters(blacklist_categories=("Cc", "Cs"),
                                   blacklist_characters="\u2028\u2029"), max_size=40)
_UNKNOWN_LABELS = st.dictionaries(
    _regex(grammar.LABEL_KEY_RE).filter(lambda k: k not in label_table.LABELS),
    _PRINTABLE, max_size=5)
_K8S_KEY = st.one_of(_regex(grammar.K8S_NAME_RE),
                     st.builds("{}/{}".format, _HOST, _regex(grammar.K8S_NAME_RE)))
_K8S_VALUE = st.one_of(st.just(""), _regex(grammar.K8S_NAME_RE))
_NODE_LABELS = st.dictionaries(_K8S_KEY, _K8S_VALUE, max_size=4)
_NODE_TAINTS = st.lists(st.fixed_dictionaries({
    "key": _K8S_KEY, "value": _K8S_VALUE,
    "effect": st.sampled_from(grammar.TAINT_EFFECTS)}), max_size=3)
_PROXY = st.one_of(st.none(), st.builds("http://{}:{}".format, _HOST, st.integers(1, 65535)),
                   st.builds("http://{}:{}@{}:3128".format, _regex(re.compile(r"[a-z]{1,8}")),
                             _regex(re.compile(r"[A-Za-z0-9%._~!*+,=-]{1,12}")), _HOST))
_NO_PROXY = st.one_of(st.none(), st.lists(st.one_of(_HOST, _HOST.map("." .__add__),
                                                    st.just("127.16.0.0/12")),
                                          min_size=1, max_size=3).map(",".join))


@st.composite
def _cluster_inputs(draw):
    labels = {**draw(_UNKNOWN_LABELS), **draw(_known_labels())}
    ng = {"name": draw(_regex(grammar.K8S_NAME_RE)),
          "role": draw(_regex(grammar.K8S_NAME_RE).filter(lambda r: r != "master")),
          "node_labels": draw(_NODE_LABELS), "node_taints": draw(_NODE_TAINTS)}
    proxies = {"http_proxy": draw(_PROXY), "https_proxy": draw(_PROXY),
               "no_proxy": draw(_NO_PROXY),
               "insecure_registry": draw(st.one_of(st.none(),
                                                   _HOST.map(lambda h: h + ":5000")))}
    return labels, ng, proxies


#: Node labels whose value the driver derives (the version, a pinned checksum, the trust).
DERIVED = {"kube_tag", "helm_client_sha256", "cloud_provider_enabled"}


def _accepted_by_the_api(labels, ng, proxies) -> None:
    """What the property feeds the driver is what the API's grammar lets through."""
    grammar.check(grammar.CLUSTER, {"labels": labels})
    grammar.check(grammar.NODEGROUP, ng)
    grammar.check(grammar.TEMPLATE, proxies)
    label_table.validate(labels)


@PROPERTY
@given(inputs=_cluster_inputs())
def test_accepted_settings_reach_the_node_exactly_and_do_nothing_else(tmp_path, inputs):
    labels, ng, proxies = inputs
    _accepted_by_the_api(labels, ng, proxies)
    canary, plant = _canary(tmp_path)
    labels = {**labels, "my_own_label": plant}
    blob, env = _render(tmp_path, ct_kw=proxies, cl_kw={"labels": labels}, ng_kw=ng)
    files = _settings_files(tmp_path, blob)
    env_out, kubelet_out, unit, profile, proxy_env = node_harness.sections(
        tmp_path, files, "60-kubelet.sh", "env -0", "kubelet_env", "kubelet_unit",
        "proxy_profile", "proxy_env")
    seen = node_harness.environment(env_out)
    runtime = {k: ("" if v.startswith("@@") else v) for k, v in RUNTIME.items()}
    assert seen == {**env, **runtime}
    exported_labels = {k.lower() for k in seen} & set(label_table.LABELS)
    assert exported_labels <= label_table.NODE_ENV
    for name in exported_labels - DERIVED:
        assert seen[name.upper()] == str(labels.get(name, label_table.LABELS[name].default))
    assert seen["NODEGROUP_NAME"] == ng["name"] and seen["NODEGROUP_ROLE"] == ng["role"]
    assert seen["HTTP_PROXY"] == (proxies["http_proxy"] or "")

    # The kubelet: fixed unit, values from kubelet.env exactly as systemd reads them.
    kubelet_env = systemd_model.parse_env_file(kubelet_out)
    node_labels = (f"magnum.openstack.org/nodegroup={ng['name']},"
                   f"magnum.openstack.org/role={ng['role']}")
    if ng["node_labels"]:
        node_labels += "," + ",".join(f"{k}={v}" for k, v in sorted(ng["node_labels"].items()))
    args = []
    if ng["node_taints"]:
        args.append("--register-with-taints=" + ",".join(
            f"{t['key']}={t['value']}:{t['effect']}" for t in ng["node_taints"]))
    if seen["CLOUD_PROVIDER_ENABLED"] == "true":
        args.append("--cloud-provider=external")
    args += seen.get("KUBELET_OPTIONS", "").split()
    assert kubelet_env == {"KUBELET_HOSTNAME": RUNTIME["NODE_NAME"],
                           "KUBELET_NODE_IP": RUNTIME["NODE_IP"],
                           "KUBELET_NODE_LABELS": node_labels,
                           "KUBELET_ARGS": " ".join(args)}
    assert unit == _fixed_units()["kubelet.service"]
    exec_start = dict((k, v) for _, k, v in systemd_model.parse_unit(unit))["ExecStart"]
    argv = systemd_model.exec_argv(exec_start, kubelet_env)
    assert argv[-len(args) - 1:] == [f"--node-labels={node_labels}", *args]

    # The proxies, for sh and for systemd.
    shell = subprocess.run(["sh", "-c", profile + 'printf "%s\\n%s\\n%s" "$HTTP_PROXY" '
                            '"$https_proxy" "$NO_PROXY"'], capture_output=True, text=True,
                           cwd=tmp_path, env={"PATH": "/usr/bin:/bin"}).stdout
    assert shell.split("\n") == [seen["HTTP_PROXY"], seen["HTTPS_PROXY"], seen["NO_PROXY"]]
    assert systemd_model.parse_env_file(proxy_env) == {
        n: seen[n.upper()] for n in ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy",
                                     "https_proxy", "no_proxy")}
    assert not (tmp_path / "canary").exists()


@PROPERTY
@given(inputs=_cluster_inputs(), words=_KIND_VALUES[label_table.ARGS])
def test_master_manifests_and_configs_carry_the_values_exactly(tmp_path, inputs, words):
    labels, ng, proxies = inputs
    labels = {**labels, "kubeapi_options": words, "kubescheduler_options": words}
    _accepted_by_the_api(labels, {}, proxies)
    blob, _ = _render(tmp_path, ct_kw=proxies, cl_kw={"labels": labels}, role="master")
    files = _settings_files(tmp_path, blob)
    env_out, manifests, config, etcd_env, unit = node_harness.sections(
        tmp_path, files, ("50-control-plane.sh", "60-kubelet.sh", "40-etcd.sh"), "env -0",
        "apiserver_manifest; echo ---; scheduler_manifest", "kubelet_config",
        'etcd_env etcd-0 "etcd-0=https://127.0.10.5:2380" new', "etcd_unit")
    seen = node_harness.environment(env_out)
    apiserver, scheduler = yaml.safe_load_all(manifests)
    command = apiserver["spec"]["containers"][0]["command"]
    options = words.split()
    assert command[0] == "kube-apiserver"
    assert command[len(command) - len(options):] == options
    assert scheduler["spec"]["containers"][0]["command"] == [
        "kube-scheduler", "--kubeconfig=/etc/kubernetes/scheduler.conf", "--leader-elect=true",
        *words.split()]
    image = apiserver["spec"]["containers"][0]["image"]
    prefix = seen.get("HYPERKUBE_PREFIX") or "registry.k8s.io/"
    assert image == f"{prefix}kube-apiserver:{seen['KUBE_TAG']}"
    config = yaml.safe_load(config)
    assert config["clusterDNS"] == [seen["DNS_SERVICE_IP"]]
    assert config["clusterDomain"] == seen["DNS_CLUSTER_DOMAIN"]
    assert systemd_model.parse_env_file(etcd_env)["MAGNUM_ETCD_INITIAL_CLUSTER_TOKEN"] == \
        seen["CLUSTER_UUID"]
    assert unit == _fixed_units()["etcd.service"]


# --- the unit files: fixed text systemd accepts ------------------------------------------

def _unit(tmp_path, fragment: str, function: str) -> str:
    path = tmp_path / "bootstrap.env"
    path.write_text("")
    return node_harness.run(tmp_path, (path,), function, fragment).stdout


def _units(tmp_path) -> dict[str, str]:
    return {
        "kubelet.service": _unit(tmp_path, "60-kubelet.sh", "kubelet_unit"),
        "etcd.service": _unit(tmp_path, "40-etcd.sh", "etcd_unit"),
        "kube-api-http.service": _unit(tmp_path, "50-control-plane.sh", "api_http_unit"),
        "magnum-bootstrap.service": bootstrap.UNIT,
    }


@functools.cache
def _fixed_units() -> dict[str, str]:
    """The units as the fragments write them with no settings at all."""
    with tempfile.TemporaryDirectory() as scratch:
        return _units(pathlib.Path(scratch))


EXPECTED_DIRECTIVES = {
    "kubelet.service": {("Unit", "Description"), ("Unit", "After"), ("Unit", "Requires"),
                        ("Service", "EnvironmentFile"), ("Service", "ExecStart"),
                        ("Service", "Restart"), ("Service", "RestartSec"),
                        ("Install", "WantedBy")},
    "etcd.service": {("Unit", "Description"), ("Unit", "After"),
                     ("Service", "EnvironmentFile"), ("Service", "ExecStart"),
                     ("Service", "Restart"), ("Service", "RestartSec"),
                     ("Install", "WantedBy")},
    "kube-api-http.service": {("Unit", "Description"), ("Unit", "After"),
                              ("Service", "ExecStart"), ("Service", "Restart"),
                              ("Service", "RestartSec"), ("Install", "WantedBy")},
    "magnum-bootstrap.service": {("Unit", "Description"), ("Unit", "Wants"), ("Unit", "After"),
                                 ("Unit", "ConditionPathExists"), ("Service", "Type"),
                                 ("Service", "RemainAfterExit"), ("Service", "TimeoutStartSec"),
                                 ("Service", "ExecStart"), ("Install", "WantedBy")},
}


def test_every_unit_is_written_from_fixed_text():
    """A unit is only ever written from a quoted heredoc: no setting can be pasted in."""
    for path in FRAGMENTS:
        text = path.read_text()
        for match in re.finditer(r"<<(-?)('?)(UNIT|PROXY)\2", text):
            assert match.group(2) == "'", f"{path.name}: unquoted {match.group(3)} heredoc"
        assert not re.search(r"\[Service\][^']*Environment=", text), path.name


def test_every_unit_parses_into_exactly_its_directives(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.fail("systemd-analyze (package systemd) is needed to check the units")
    root = tmp_path / "root"
    units_dir = root / "etc" / "systemd" / "system"
    units_dir.mkdir(parents=True)
    bin_dir = root / "usr" / "local" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("kubelet", "etcd", "kubectl", "magnum-bootstrap"):
        (bin_dir / tool).write_text("#!/bin/sh\n")
        (bin_dir / tool).chmod(0o755)
    for target in ("sysinit", "basic", "multi-user", "shutdown", "network-online", "network",
                   "local-fs", "sockets", "paths", "timers", "slices", "swap"):
        source = f"/usr/lib/systemd/system/{target}.target"
        if pathlib.Path(source).exists():
            shutil.copy(source, units_dir)
    # containerd.service comes with the runtime the node installs; a stand-in here.
    (units_dir / "containerd.service").write_text(
        "[Service]\nExecStart=/usr/local/bin/kubelet\n")
    units = _units(tmp_path)
    for name, text in units.items():
        (units_dir / name).write_text(text)
        directives = systemd_model.parse_unit(text)
        assert {(s, k) for s, k, _ in directives} == EXPECTED_DIRECTIVES[name], name
        assert len(directives) == len(EXPECTED_DIRECTIVES[name]), name
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", f"--root={root}",
                             *units], capture_output=True, text=True, cwd=units_dir)
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


@pytest.mark.parametrize("value", ["a\"b", "$HOME", "`id`", "back\\slash", "sp ace",
                                   "$(touch x)", "'single'", "%n%i", "#hash", ";semi"])
def test_systemd_env_lines_read_back_exactly(tmp_path, value):
    path = tmp_path / "bootstrap.env"
    path.write_text("")
    out = node_harness.run(tmp_path, (path,), f"systemd_env V {shlex.quote(value)}",
                           "60-kubelet.sh").stdout
    assert systemd_model.parse_env_file(out) == {"V": value}


def test_systemd_env_refuses_a_line_break(tmp_path):
    path = tmp_path / "bootstrap.env"
    path.write_text("")
    result = node_harness.run(tmp_path, (path,), "systemd_env V $'a\\nExecStart=/bin/id'",
                              "60-kubelet.sh", check=False)
    assert result.returncode != 0


@pytest.mark.parametrize("value", ["a\"b", "$HOME", "`id`", "back\\slash", "a: {b}", "# x",
                                   "- item", "é ü", "tab\there", "nl\nline"])
def test_json_quote_is_read_back_by_yaml_exactly(tmp_path, value):
    path = tmp_path / "bootstrap.env"
    path.write_text("")
    out = node_harness.run(tmp_path, (path,), f"printf 'k: %s\\n' \"$(json_quote "
                           f"{shlex.quote(value)})\"", "60-kubelet.sh").stdout
    assert yaml.safe_load(out) == {"k": value}


def test_templates_do_not_depend_on_tenant_strings(tmp_path):
    """The Jinja2 renders take the stack's shape only: tenant strings reach Heat as
    parameters (data), the nodes through the settings files."""
    from drivers.heat import renderer

    canary, plant = _canary(tmp_path)
    benign = support.template()
    hostile = support.template(labels={"my": plant, "kubelet_options": "--v=2"},
                               http_proxy="http://p:1", no_proxy="x")
    features = [parameters.features(ClusterView.of(support.cluster(ct), ct,
                                                   support.default_nodegroups(support.cluster(ct))))
                for ct in (benign, hostile)]
    assert features[0] == features[1]
    assert all(isinstance(v, bool) for v in dataclasses.astuple(features[0]))
    for render in (renderer.render_cluster, renderer.render_nodegroup):
        assert list(inspect.signature(render).parameters) == ["driver_name", "features"]
    assert renderer.render_cluster("k8s_fedora_coreos_v1", features[1]) == \
        renderer.render_cluster("k8s_fedora_coreos_v1", features[0])


_QUOTABLE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=(
    "\x00\x85\u2028\u2029\ufeff" + "".join(map(chr, range(0x80, 0xa0))))), max_size=30)


@PROPERTY
@given(values=st.lists(_QUOTABLE, min_size=1, max_size=8))
def test_json_quote_round_trips_any_text_through_json_and_yaml(tmp_path, values):
    path = tmp_path / "bootstrap.env"
    path.write_text("")
    script = "; ".join(f"json_quote {shlex.quote(v)}; echo" for v in values)
    lines = node_harness.run(tmp_path, (path,), script, "60-kubelet.sh").stdout.splitlines()
    assert [json.loads(line) for line in lines] == values
    assert yaml.safe_load("[" + ", ".join(lines) + "]") == values
