"""A minimal Heat driver for the conductor tests, talking to the stand-in over real HTTP.

Not shipped: it stands in for the real drivers (drivers/) so the conductor's handlers,
recovery and sync are exercised against real HTTP. It goes through the Heat drivers' own
client, retries and status polling (drivers/heat), so their behaviour under the stand-in's
faults is what the conductor sees. ``install()`` registers it in the driver registry of the
current process (the conductor subprocesses call it too).
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from drivers.heat import client, retry, status
from magnum_common import states, utils
from magnum_common.config import CONF
from magnum_common.drivers import registry
from magnum_common.drivers.base import Driver, Provides, StackOutputs, StackPoll

OS_NAME = "standin-os"
TEMPLATE = {"heat_template_version": "queens", "resources": {}}


def stack_name(cluster: Any, nodegroup: Any = None) -> str:
    base = (cluster.name or "cluster")[:20]
    if nodegroup is not None:
        return f"{base}-{nodegroup.name[:9]}-{utils.short_id(nodegroup.uuid)}".lower()
    return f"{base}-{utils.short_id(cluster.uuid)}".lower()


def _find_or_create(heat: Any, name: str, parameters: dict, timeout_mins: int | None) -> str:
    existing = list(heat.stacks.list(filters={"name": name}))
    if existing:
        return existing[0].id
    return heat.stacks.create(stack_name=name, template=TEMPLATE, parameters=parameters,
                              timeout_mins=timeout_mins)["stack"]["id"]


class StandinMonitor:
    def __init__(self, url: str) -> None:
        self.url = url

    def poll_health(self) -> tuple[str, dict[str, Any]]:
        try:
            with urllib.request.urlopen(self.url, timeout=5) as answer:
                nodes = json.load(answer)
        except Exception as exc:
            return states.UNKNOWN, {"api": f"not accessible: {exc}"}
        healthy = all(nodes.values())
        return (states.HEALTHY if healthy else states.UNHEALTHY), nodes


def _heat(res: Any) -> Any:
    return client.heat(res.session())


class StandinDriver(Driver):
    name = "standin"
    stack_service = "heat"

    @property
    def provides(self) -> list[Provides]:
        return [Provides("vm", OS_NAME, "kubernetes")]

    def _params(self, nodegroups: list[Any]) -> dict[str, Any]:
        masters = sum(ng.node_count or 0 for ng in nodegroups if ng.role == "master")
        minions = sum(ng.node_count or 0 for ng in nodegroups
                      if ng.role != "master" and ng.is_default)
        return {"number_of_masters": masters, "number_of_minions": minions}

    @retry.operation()
    def create_cluster(self, res, view, timeout_mins):
        return _find_or_create(_heat(res), stack_name(view.cluster),
                               self._params(view.nodegroups), timeout_mins)

    @retry.operation()
    def resize_cluster(self, res, view, nodegroup, node_count, nodes_to_remove,
                       rollback=False):
        stack_id = nodegroup.stack_id if not nodegroup.is_default else view.cluster.stack_id
        _heat(res).stacks.update(stack_id, existing=True,
                                 parameters={"number_of_minions": node_count,
                                             "minions_to_remove": nodes_to_remove})

    @retry.operation()
    def upgrade_cluster(self, res, view, new_template, nodegroup, max_batch_size):
        stack_id = nodegroup.stack_id if not nodegroup.is_default else view.cluster.stack_id
        _heat(res).stacks.update(stack_id, existing=True, parameters={
            "kube_tag": (new_template.labels or {}).get("kube_tag"),
            "update_max_batch_size": max_batch_size})

    @retry.operation(missing_ok=True)
    def delete_cluster(self, res, view):
        heat = _heat(res)
        for ng in view.nodegroups:
            if not ng.is_default and ng.stack_id:
                _delete(heat, ng.stack_id)
        if view.cluster.stack_id:
            _delete(heat, view.cluster.stack_id)

    @retry.operation()
    def find_stacks(self, res, view, nodegroups=None):
        heat = _heat(res)
        cluster = view.cluster
        project = cluster.project_id if res.as_service else None
        main = _lookup(heat, cluster.stack_id, stack_name(cluster), project)
        found = {}
        for ng in view.nodegroups if nodegroups is None else nodegroups:
            stack = main if ng.is_default else _lookup(heat, ng.stack_id,
                                                       stack_name(cluster, ng), project)
            if stack is not None:
                found[ng.uuid] = stack
        return found

    @retry.operation()
    def create_nodegroup(self, res, view, nodegroup):
        return _find_or_create(_heat(res), stack_name(view.cluster, nodegroup),
                               {"number_of_minions": nodegroup.node_count}, None)

    def update_nodegroup(self, res, view, nodegroup):
        return None

    @retry.operation(missing_ok=True)
    def delete_nodegroup(self, res, view, nodegroup):
        _delete(_heat(res), nodegroup.stack_id)

    @retry.operation()
    def rotate_ca_certificate(self, res, view):
        _heat(res).stacks.update(view.cluster.stack_id, existing=True,
                                 parameters={"ca_rotated": "yes"})

    @retry.operation()
    def rotate_credential(self, res, view):
        """As the Heat drivers: the trustee, when nodes hold one, as a stack parameter."""
        if not CONF.trust.cluster_user_trust:
            return False
        heat = _heat(res)
        cluster = view.cluster
        trustee = res.trustee().user_id
        if heat.stacks.get(cluster.stack_id).parameters.get("trustee_user_id") != trustee:
            heat.stacks.update(cluster.stack_id, existing=True,
                               parameters={"trustee_user_id": trustee})
        return True

    def stack_names(self, view):
        return {ng.uuid: stack_name(view.cluster, None if ng.is_default else ng)
                for ng in view.nodegroups}

    def stack_create_window(self) -> float:
        return CONF.heat_client.timeout * CONF.conductor.heat_attempts

    @retry.operation()
    def remove_orphan_stack(self, session, name, project_id):
        heat = client.heat(session)
        stack = next((s for s in heat.stacks.list(filters={"name": name}, global_tenant=True)
                      if s.project == project_id), None)
        if stack is None:
            return True
        if stack.stack_status != "DELETE_IN_PROGRESS":
            _delete(heat, stack.id)
        return False

    def stack_ids(self, view):
        return {ng.uuid: view.cluster.stack_id if ng.is_default else ng.stack_id
                for ng in view.nodegroups}

    def stack_states(self, session, stack_ids, as_service=False) -> StackPoll:
        return status.stack_states(client.heat(session), stack_ids, as_service)

    def failure_details(self, res, stack_id):
        return status.failure_summary(_heat(res), stack_id)

    def read_outputs(self, res, view, stack_id):
        stack = status.finished_stack(_heat(res), stack_id)
        outputs = {o["output_key"]: o["output_value"] for o in stack.outputs or []}
        result = StackOutputs(api_address=f"https://{outputs['api_address']}:6443"
                              if outputs.get("api_address") else None,
                              coe_version="v1.30.0", container_version="1.0")
        for ng in view.nodegroups:
            if ng.stack_id != stack.id:
                continue
            key = "kube_masters" if ng.role == "master" else "kube_minions"
            result.node_addresses[ng.uuid] = list(outputs.get(key) or [])
        return result

    def get_monitor(self, res, view):
        base = res.url_for("identity")
        if not base:
            return None
        return StandinMonitor(base.rsplit("/v3", 1)[0] + f"/k8s/{view.uuid}")


def _lookup(heat: Any, stack_id: str | None, name: str,
            project: str | None = None) -> str | None:
    """The live stack's id: by the recorded id, else by name (the project's list; as the
    service, ``project``'s stacks in the list of all projects)."""
    from heatclient import exc

    if not stack_id:
        stacks = (heat.stacks.list(filters={"name": name}) if project is None else
                  [s for s in heat.stacks.list(filters={"name": name}, global_tenant=True)
                   if s.project == project])
        return next((s.id for s in stacks), None)
    try:
        stack = heat.stacks.get(stack_id)
    except exc.HTTPNotFound:
        return None
    return None if stack.stack_status == states.DELETE_COMPLETE else stack.id


def _delete(heat: Any, stack_id: str) -> None:
    from heatclient import exc

    try:
        heat.stacks.delete(stack_id)
    except exc.HTTPNotFound:
        pass


def install() -> StandinDriver:
    """Make the registry serve the stand-in driver (and only it) for the rest of this process
    (a conductor process started by the tests)."""
    driver = StandinDriver()
    registry._extensions = lambda: {driver.name: driver}
    return driver
