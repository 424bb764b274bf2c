"""The grammars of tenant strings: what real clients send passes, what a node could
interpret is refused."""

from __future__ import annotations

import pytest

from magnum_common import exception, grammar

# Values real clients send (openstack coe / Horizon / terraform examples, the labels of
# public clouds' templates) must pass.
ACCEPTED = [
    (grammar.label_key, ["kube_tag", "auto_scaling_enabled", "master_lb_floating_ip_enabled",
                         "clusterautoscale", "ca_scale_down_unneeded_time", "x" * 63]),
    (grammar.label_value, ["v1.27.8-rancher2", "docker.io/catalystcloud/", "True", "",
                           "--max-pods=110 --eviction-hard=memory.available<100Mi",
                           "{'k': 'v'}", "$weird but inert", "é" * 100]),
    (grammar.k8s_name, ["default-worker", "default-master", "gpu_pool", "ng1", "A.b-c_9",
                        "x" * 63]),
    (grammar.proxy_url, ["http://127.164.177.169:8080", "http://proxy.example.com:3128/",
                         "https://user:p%40ss@proxy:3128", "proxy.example.com:3128",
                         "socks5://[fd00::1]:1080"]),
    (grammar.no_proxy, ["localhost,127.0.0.1,.example.com,127.0.0.0/8", "*", "a, b ,c",
                        "*.svc,.cluster.local,[::1]"]),
    (grammar.registry_host, ["127.0.0.5:5000", "registry.example.com", "reg:5000",
                             "[fd00::5]:5000"]),
    (grammar.keypair, ["kp", "my key", "user@host", "mykey.pub", "default_key-1"]),
    (grammar.http_url, ["https://discovery.etcd.io/abc123", "http://127.0.0.1:2379/x"]),
    (grammar.storage_driver, ["overlay2", "overlay", "devicemapper"]),
    (grammar.openstack_ref, ["fedora-coreos-40", "6b2a0e9c-6f5e-4b53-9a1e-9a7f6a1c0001",
                             "private subnet (é)"]),
    (grammar.k8s_label_key, ["workload", "node.kubernetes.io/instance-type",
                             "example.com/gpu", "Team"]),
    (grammar.tag, ["v1.31.4", "abf028a", "wallaby-stable-1", "3.12.2", "v1.5.1-flannel2"]),
    (grammar.image_prefix, ["", "docker.io/openstackmagnum/", "registry.k8s.io/",
                            "reg.example.com:5000/k8s/"]),
    (grammar.component_args, ["--max-pods=110 --v=2",
                              "--eviction-hard=memory.available<100Mi,nodefs.available<10%",
                              "--feature-gates=A=true,B=false"]),
]

HOSTILE = ["$(touch /tmp/x)", "`id`", "a;b", "a|b", "a&&b", "x\nExecStartPre=/bin/sh",
           "x\r\ny", "nul\x00", "tab\t", "\u2028", "'quote'", '"dq"', "back\\slash"]

REFUSED = [
    (grammar.label_key, ["Kube_tag", "a;b", "1abc", "bash-env", "a.b", "x" * 64, "",
                         "a;t=touch;p=/tmp/x;${t,,} ${p,,};b"]),
    (grammar.label_value, ["a\nb", "a\x00", "a\rb", "\x1b[31m", "a\u2028b", "x" * 4097]),
    (grammar.k8s_name, ["-a", "a-", "a b", "x" * 64, "$(id)", "a/b", ""]),
    (grammar.proxy_url, ["ftp://proxy", "http://", "http://a b:1", "http://h:99999",
                         "http://h;id", "http://h/$(id)", "http://h'"]),
    (grammar.no_proxy, ["a;b", "a b", "$(id)"]),
    (grammar.registry_host, ["http://reg:5000", "reg:5000/x", "../../etc", "reg:port",
                             "a;b"]),
    (grammar.keypair, ["kp;id", "kp\n", "k'p", ""]),
    (grammar.http_url, ["file:///etc/passwd", "javascript:alert(1)", "https://h/`id`"]),
    (grammar.storage_driver, ["Overlay2", "overlay2;id", "a b"]),
    (grammar.openstack_ref, ["a\nb", "x" * 256]),
    (grammar.k8s_label_key, ["Example.com/x", "/x", "a/b/c", "a=b", "a,b"]),
    (grammar.tag, ["..", "-x", "v1;id", "a/b", "x" * 129]),
    (grammar.image_prefix, ["docker.io/Lib/", "docker.io/lib", "a b/", "reg/`id`/"]),
    (grammar.component_args, ["--x='y z'", "--x=$(id)", "--a;b", "--x=\"y\"", "a\\b",
                              "--x=(y)", "a|b", "a&b"]),
]


@pytest.mark.parametrize("check,values", ACCEPTED,
                         ids=[c.__name__ if hasattr(c, "__name__") else str(i)
                              for i, (c, _) in enumerate(ACCEPTED)])
def test_real_clients_values_pass(check, values):
    for value in values:
        assert check(value) is None, value


@pytest.mark.parametrize("check,values", REFUSED,
                         ids=[c.__name__ if hasattr(c, "__name__") else str(i)
                              for i, (c, _) in enumerate(REFUSED)])
def test_what_a_node_could_interpret_is_refused(check, values):
    for value in values:
        assert check(value), value


@pytest.mark.parametrize("check", [grammar.label_key, grammar.k8s_name, grammar.proxy_url,
                                   grammar.no_proxy, grammar.registry_host, grammar.keypair,
                                   grammar.http_url, grammar.storage_driver, grammar.tag,
                                   grammar.image_prefix, grammar.component_args,
                                   grammar.k8s_label_key])
def test_every_node_facing_grammar_refuses_the_hostile_corpus(check):
    for value in HOSTILE:
        assert check(value), (check, value)


def test_non_strings_are_refused():
    for check in (grammar.label_key, grammar.k8s_name, grammar.openstack_ref,
                  grammar.proxy_url):
        assert check(3) and check(["a"])


def test_label_maps_name_the_bad_key_or_value():
    assert grammar.labels({"kube_tag": "v1", "n": "3"}) is None
    assert "label 'Bad'" in grammar.labels({"Bad": "x"})
    assert "label a:" in grammar.labels({"a": "x\ny"})
    assert grammar.labels(["a"]) == "expected an object"


def test_node_labels_and_taints_follow_kubernetes():
    assert grammar.node_labels({"example.com/gpu": "yes", "zone": "", "x": None}) is None
    assert "value of a" in grammar.node_labels({"a": "b,c=d"})
    assert grammar.node_taints([{"key": "gpu", "value": "yes", "effect": "NoSchedule"},
                                {"key": "x", "effect": "NoExecute"}]) is None
    assert "effect" in grammar.node_taints([{"key": "gpu", "effect": "Sometimes"}])
    assert ".value" in grammar.node_taints([{"key": "k", "value": "v:NoSchedule",
                                             "effect": "NoSchedule"}])
    assert "expected a list" in grammar.node_taints({"key": "k"})


def test_env_keys_never_name_an_interpreter_variable():
    for name in ("BASH_ENV", "ENV", "PATH", "IFS", "LD_PRELOAD", "LD_LIBRARY_PATH",
                 "PYTHONPATH", "PYTHONSTARTUP", "BASH_FUNC_x%%", "PS4", "KUBECONFIG"):
        assert grammar.env_key(name), name
    assert grammar.env_key("KUBE_TAG") is None
    assert grammar.env_key("kube_tag") and grammar.env_key("A;B")


def test_check_raises_a_400_naming_the_first_bad_field():
    with pytest.raises(exception.InvalidParameterValue) as err:
        grammar.check(grammar.TEMPLATE, {"http_proxy": "http://ok:1", "no_proxy": "a;b",
                                         "labels": {}})
    assert err.value.code == 400
    assert "field/attribute no_proxy" in str(err.value) and "'a;b'" in str(err.value)
    grammar.check(grammar.TEMPLATE, {"no_proxy": "a;b"}, fields=("labels",))
    grammar.check(grammar.NODEGROUP, {"name": None, "labels": {}})


def test_long_values_are_shortened_in_the_message():
    with pytest.raises(exception.InvalidParameterValue) as err:
        grammar.check(grammar.CLUSTER, {"keypair": "k;" * 200})
    assert len(str(err.value)) < 400
