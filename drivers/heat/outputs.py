"""Read a finished stack's outputs and parameters into the values the DB rows keep."""

from __future__ import annotations

from typing import Any

from drivers.heat import stack_ops
from drivers.heat.parameters import api_port, cluster_labels
from magnum_common.drivers.base import StackOutputs
from magnum_common.drivers.view import ClusterView


def api_url(address: str | None, tls_disabled: bool) -> str | None:
    """``https://ip:6443``, or ``http://ip:8080`` when the template disables TLS: the port
    the stack's ``kubernetes_port`` parameter gave the API load balancer's client listener."""
    if not address:
        return None
    host = f"[{address}]" if ":" in address and not address.startswith("[") else address
    scheme = "http" if tls_disabled else "https"
    return f"{scheme}://{host}:{api_port(tls_disabled)}"


def _addresses(values: Any) -> list[str]:
    return [str(v) for v in (values or []) if v]


def parse(view: ClusterView, stack: Any) -> StackOutputs:
    """Translate the cluster stack, or an extra node group's stack, into row values.

    Addresses are the public ones when the cluster has floating IPs, private otherwise;
    counts come from the stack's parameters so they reflect what Heat built.
    """
    cluster, template = view.cluster, view.template
    out = stack_ops.outputs(stack)
    params = getattr(stack, "parameters", None) or {}
    public = bool(cluster.floating_ip_enabled if cluster.floating_ip_enabled is not None
                  else template.floating_ip_enabled)
    result = StackOutputs()
    if stack.id != cluster.stack_id:
        for ng in view.nodegroups:
            if ng.stack_id == stack.id:
                key = "kube_minions" if public else "kube_minions_private"
                result.node_addresses[ng.uuid] = _addresses(out.get(key))
                if "number_of_minions" in params:
                    result.node_counts[ng.uuid] = int(params["number_of_minions"])
        return result
    master, worker = view.master, view.worker
    result.api_address = api_url(out.get("api_address"), bool(template.tls_disabled))
    result.node_addresses[master.uuid] = _addresses(
        out.get("kube_masters" if public else "kube_masters_private"))
    result.node_addresses[worker.uuid] = _addresses(
        out.get("kube_minions" if public else "kube_minions_private"))
    if "number_of_masters" in params:
        result.node_counts[master.uuid] = int(params["number_of_masters"])
    if "number_of_minions" in params:
        result.node_counts[worker.uuid] = int(params["number_of_minions"])
    kube = params.get("kube_tag") or params.get("kube_version")
    if kube:
        result.coe_version = kube if kube.startswith("v") else f"v{kube}"
    result.container_version = cluster_labels(view).get("containerd_version")
    return result
