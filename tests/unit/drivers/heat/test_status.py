"""A failed stack's status_reason names the resource at fault and its message once."""

from __future__ import annotations

from types import SimpleNamespace

from drivers.heat import status

MESSAGE = "Server c-default-worker-0 failed to boot: flavor 'fail.small' is refused"


def resource(name, kind, reason, nested=False, status="CREATE_FAILED"):
    links = [{"rel": "self", "href": "h"}] + ([{"rel": "nested", "href": "n"}] if nested
                                              else [])
    return SimpleNamespace(resource_name=name, resource_type=kind, resource_status=status,
                           resource_status_reason=reason, links=links)


class Heat:
    def __init__(self, resources):
        self.resources = SimpleNamespace(list=lambda stack_id, nested_depth: resources)


def test_leaf_message_drops_every_level_of_the_chain():
    assert status.leaf_message("Resource CREATE failed: Error: resources.default_worker."
                             "resources.kube_minions.resources[0].resources.server: "
                             + MESSAGE) == MESSAGE
    assert status.leaf_message("Error: resources[0].resources.kube-minion: " + MESSAGE) == \
        MESSAGE
    assert status.leaf_message("Timed out") == "Timed out"
    assert status.leaf_message(None) == ""


def test_the_culprit_is_the_server_not_its_containers():
    resources = [
        resource("kube_minions", "OS::Heat::ResourceGroup",
                 "Error: resources.kube_minions.resources[0].resources.kube-minion: "
                 + MESSAGE, nested=True),
        resource("0", "worker.yaml", "Error: resources[0].resources.kube-minion: " + MESSAGE,
                 nested=True),
        resource("kube-minion", "OS::Nova::Server",
                 "Error: resources.kube-minion.resources.impl: " + MESSAGE, nested=True),
        # the local cloud's server is a provider template: its inner resource is no server
        resource("impl", "LocalCloud::Fake::Resource", MESSAGE),
        resource("port", "OS::Neutron::Port", "state changed", status="CREATE_COMPLETE"),
    ]
    summary = status.failure_summary(Heat(resources), "s1")
    assert summary == f"Resource kube-minion (OS::Nova::Server) CREATE_FAILED: {MESSAGE}"
    assert summary.count("failed to boot") == 1


def test_a_plain_failed_resource_wins_over_nested_stacks():
    resources = [
        resource("kube_masters", "OS::Heat::ResourceGroup", "Error: resources[0]: boom",
                 nested=True),
        resource("kube-master", "OS::Nova::Server",
                 "ResourceInError: resources.kube-master: Went to status ERROR"),
    ]
    assert status.failure_summary(Heat(resources), "s1") == (
        "Resource kube-master (OS::Nova::Server) CREATE_FAILED: Went to status ERROR")
    assert status.failure_summary(Heat([]), "s1") == ""
