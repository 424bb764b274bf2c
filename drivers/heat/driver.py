"""The Kubernetes-on-Heat driver the three OS drivers share; they differ only by profile."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from keystoneauth1 import exceptions as ks_exc
from oslo_log import log as logging

from drivers.heat import (
    client,
    etcd_handover,
    outputs,
    parameters,
    renderer,
    retry,
    stack_ops,
    status,
    upgrade,
)
from drivers.heat import labels as label_table
from drivers.heat.conf import CONF
from drivers.heat.monitor import K8sMonitor
from drivers.heat.profile import OsProfile
from magnum_common import exception, utils
from magnum_common.drivers import settings
from magnum_common.drivers.base import (
    ClusterResources,
    Driver,
    Provides,
    StackOutputs,
    StackPoll,
)
from magnum_common.drivers.view import ClusterRow, ClusterView, NodeGroupRow, TemplateRow

LOG = logging.getLogger(__name__)

_INDEX_SUFFIX = re.compile(r"-(\d+)$")


def removal_list(servers: dict[str, str], nodes_to_remove: list[str]) -> list[str]:
    """Translate server names to the resource-group indexes Heat removes by.

    ``servers`` maps server names to member indexes (the stack's ``kube_minion_servers``
    output). Server ids and plain indexes pass as they are (Heat matches ids against the
    group's member references); a name that is neither known nor ends in an index is
    refused rather than letting Heat silently remove some other node.
    """
    result = []
    for node in nodes_to_remove:
        if node in servers:
            result.append(str(servers[node]))
        elif node.isdigit() or utils.is_uuid_like(node):
            result.append(node)
        else:
            match = _INDEX_SUFFIX.search(node)
            if not match:
                raise exception.InvalidParameterValue(
                    err=f"Node {node} is not a member of this node group.")
            result.append(match.group(1))
    return result


class KubernetesHeatDriver(Driver):
    """Kubernetes clusters as Heat stacks: one for the cluster, one per extra node group."""

    profile: ClassVar[OsProfile]
    stack_service: ClassVar[str] = "heat"

    @property
    def provides(self) -> list[Provides]:
        return [Provides("vm", self.profile.os_distro, "kubernetes")]

    def template_paths(self) -> list[str]:
        """Where this driver's templates come from (its own first, then the shared base)."""
        return [str(p) for p in renderer.template_dirs(self.profile.driver_name)]

    # --- validation --------------------------------------------------------------------
    def validate_labels(self, labels: dict[str, str]) -> None:
        label_table.validate(labels)
        label_table.check_trust(labels)

    def trust_features(self, labels: dict[str, str] | None,
                       template: TemplateRow) -> list[str]:
        return label_table.trust_roles_features(
            label_table.resolve(template.labels, labels), template.volume_driver)

    # --- cluster -----------------------------------------------------------------------
    def _render_cluster(self, view: ClusterView) -> renderer.Rendered:
        return renderer.render_cluster(self.profile.driver_name, parameters.features(view))

    @retry.operation()
    def create_cluster(self, res: ClusterResources, view: ClusterView,
                       timeout_mins: int) -> str:
        heat = client.heat(res.session())
        name = stack_ops.cluster_stack_name(view.cluster)
        # A first create sends its POST at once (a stack of the name exists only after a
        # 409, which stack_ops.create answers); a resumed one whose stack id was saved
        # finds it by that id.
        if view.cluster.stack_id:
            existing = stack_ops.find(heat, view.cluster.stack_id)
            if existing is not None:
                return existing.id
        params = parameters.cluster_parameters(res, self.profile, view,
                                               parameters.ServiceAccountKeys.generate())
        return stack_ops.create(heat, name, self._render_cluster(view), params, timeout_mins)

    @retry.operation()
    def resize_cluster(self, res: ClusterResources, view: ClusterView,
                       nodegroup: NodeGroupRow, node_count: int,
                       nodes_to_remove: list[str], rollback: bool = False) -> None:
        if settings.is_master(nodegroup):
            self.validate_master_resize(node_count)
        heat = client.heat(res.session())
        stack_id = view.cluster.stack_id if nodegroup.is_default else nodegroup.stack_id
        removals = []
        if nodes_to_remove:
            servers = stack_ops.live_outputs(heat, stack_id).get("kube_minion_servers") or {}
            removals = removal_list(servers, nodes_to_remove)
        stack_ops.patch(heat, stack_id, {"number_of_minions": int(node_count),
                                         "minions_to_remove": removals}, rollback=rollback)

    def _current_parameters(self, heat: Any, stack_id: str) -> dict[str, Any]:
        stack = heat.stacks.get(stack_id)
        return dict(getattr(stack, "parameters", None) or {})

    def upgraded_labels(self, row: ClusterRow | NodeGroupRow,
                        new_template: TemplateRow) -> dict[str, str]:
        return upgrade.upgraded_labels(row, new_template)

    @retry.operation()
    def upgrade_cluster(self, res: ClusterResources, view: ClusterView,
                        new_template: TemplateRow, nodegroup: NodeGroupRow,
                        max_batch_size: int) -> None:
        """Roll the default groups (masters first) or one extra group to ``new_template``."""
        heat = client.heat(res.session())
        target = upgrade.target(view, new_template, nodegroup)
        batch = max(int(max_batch_size or 1), 1)
        if nodegroup.is_default:
            current = self._current_parameters(heat, view.cluster.stack_id)
            upgrade.check_version(current.get("kube_tag"),
                                  parameters.cluster_labels(target)["kube_tag"])
            restore = self._etcd_handover(res, view.cluster, current)
            params = self._replacement_parameters(
                parameters.cluster_parameters(res, self.profile, target, None, restore),
                current)
            params["update_max_batch_size"] = batch
            stack_ops.patch(heat, view.cluster.stack_id, params,
                            rendered=self._render_cluster(target))
            return
        target_ng = target.nodegroup(nodegroup.uuid)
        current = self._current_parameters(heat, nodegroup.stack_id)
        upgrade.check_version(current.get("kube_tag"),
                              parameters.nodegroup_labels(target, target_ng)["kube_tag"])
        params = self._nodegroup_replacement(res, heat, target, target_ng, current)
        params["update_max_batch_size"] = batch
        stack_ops.patch(heat, nodegroup.stack_id, params,
                        rendered=self._render_nodegroup(target, target_ng))

    @staticmethod
    def _etcd_handover(res: ClusterResources, cluster: ClusterRow,
                       current: dict[str, Any]) -> dict[str, str] | None:
        """Before the masters are replaced: a lone master without an etcd volume hands its
        etcd snapshot over (the new master's restore settings), else nothing is needed."""
        if not etcd_handover.needed(int(current.get("number_of_masters", 1)),
                                    int(current.get("etcd_volume_size", 0))):
            return None
        etcd_handover.check_possible(bool(CONF.trust.cluster_user_trust)
                                     and bool(res.url_for("image")))
        glance = etcd_handover.Glance(res.session(), res.url_for("image") or "")
        return etcd_handover.take(glance, cluster.uuid).node_env()

    @staticmethod
    def _replacement_parameters(params: dict[str, Any], current: dict[str, Any]) -> dict:
        """New node settings, one generation on; counts and removals stay as Heat has them."""
        for key in ("number_of_masters", "number_of_minions", "minions_to_remove"):
            params.pop(key, None)
        params["master_generation"] = upgrade.next_generation(current.get("master_generation"))
        params["worker_generation"] = upgrade.next_generation(current.get("worker_generation"))
        return params

    def _nodegroup_replacement(self, res: ClusterResources, heat: Any, view: ClusterView,
                               nodegroup: NodeGroupRow,
                               current: dict[str, Any]) -> dict[str, Any]:
        params = parameters.nodegroup_parameters(
            res, self.profile, view, nodegroup,
            stack_ops.live_outputs(heat, view.cluster.stack_id))
        for key in ("number_of_minions", "minions_to_remove"):
            params.pop(key, None)
        params["generation"] = upgrade.next_generation(current.get("generation"))
        return params

    @retry.operation(missing_ok=True)
    def delete_cluster(self, res: ClusterResources, view: ClusterView) -> None:
        heat = client.heat(res.session())
        cluster = view.cluster
        deleted = [stack_ops.delete(heat, ng.stack_id or stack_ops.nodegroup_stack_name(
            cluster, ng)) for ng in view.nodegroups if not ng.is_default]
        deleted = [d for d in deleted if d]
        if deleted and not stack_ops.wait_gone(
                heat, deleted, CONF.drivers.nodegroup_stack_delete_timeout):
            LOG.warning("Node group stacks %s of cluster %s are still deleting; deleting the "
                        "cluster stack anyway", deleted, cluster.uuid)
        stack_ops.delete(heat, cluster.stack_id or stack_ops.cluster_stack_name(cluster))
        if res.url_for("image"):
            try:
                etcd_handover.cleanup(etcd_handover.Glance(res.session(),
                                                           res.url_for("image") or ""),
                                      cluster.uuid)
            except ks_exc.ClientException as exc:
                LOG.warning("etcd snapshots of cluster %s left in Glance: %s", cluster.uuid,
                            exc)

    @retry.operation()
    def find_stacks(self, res: ClusterResources, view: ClusterView,
                    nodegroups: Sequence[NodeGroupRow] | None = None) -> dict[str, str]:
        heat = client.heat(res.session())
        cluster = view.cluster

        def lookup(stack_id: str | None, name: str) -> Any | None:
            if stack_id or not res.as_service:
                return stack_ops.find(heat, stack_id or name)
            return stack_ops.find_in_project(heat, name, cluster.project_id)

        main = lookup(cluster.stack_id, stack_ops.cluster_stack_name(cluster))
        found = {}
        for ng in view.nodegroups if nodegroups is None else nodegroups:
            stack = main if ng.is_default else lookup(
                ng.stack_id, stack_ops.nodegroup_stack_name(cluster, ng))
            if stack is not None:
                found[ng.uuid] = stack.id
        return found

    # --- node groups ---------------------------------------------------------------------
    def _render_nodegroup(self, view: ClusterView,
                          nodegroup: NodeGroupRow) -> renderer.Rendered:
        return renderer.render_nodegroup(self.profile.driver_name,
                                         parameters.features(view, nodegroup))

    @retry.operation()
    def create_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> str:
        heat = client.heat(res.session())
        name = stack_ops.nodegroup_stack_name(view.cluster, nodegroup)
        existing = stack_ops.find(heat, nodegroup.stack_id or name)
        if existing is not None:
            return existing.id
        params = parameters.nodegroup_parameters(
            res, self.profile, view, nodegroup,
            stack_ops.live_outputs(heat, view.cluster.stack_id))
        return stack_ops.create(heat, name, self._render_nodegroup(view, nodegroup),
                                params, view.cluster.create_timeout)

    @retry.operation()
    def update_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> None:
        """Roll new node labels / taints onto the group's nodes, batch by batch as an upgrade
        does (the kubelet registers a node with them once, at boot). Min/max node counts are
        the autoscaler's business: no stack change. The stack keeps a digest of what its
        nodes registered with, so a replayed update rolls nothing twice."""
        heat = client.heat(res.session())
        default = nodegroup.is_default
        stack_id = view.cluster.stack_id if default else nodegroup.stack_id
        if settings.is_master(nodegroup) or not stack_id:
            return
        key = "worker_node_labels_digest" if default else "node_labels_digest"
        digest = parameters.node_labels_digest(nodegroup)
        current = self._current_parameters(heat, stack_id)
        if (current.get(key) or parameters.NO_NODE_LABELS_DIGEST) == digest:
            return
        if default:
            full = parameters.cluster_parameters(res, self.profile, view, None)
            params = {"worker_bootstrap_env": full["worker_bootstrap_env"], key: digest,
                      "worker_generation": upgrade.next_generation(
                          current.get("worker_generation"))}
            rendered = self._render_cluster(view)
        else:
            full = parameters.nodegroup_parameters(
                res, self.profile, view, nodegroup,
                stack_ops.live_outputs(heat, view.cluster.stack_id))
            params = {"bootstrap_env": full["bootstrap_env"], key: digest,
                      "generation": upgrade.next_generation(current.get("generation"))}
            rendered = self._render_nodegroup(view, nodegroup)
        stack_ops.patch(heat, stack_id, params, rendered=rendered)

    @retry.operation(missing_ok=True)
    def delete_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> None:
        stack_ops.delete(client.heat(res.session()), nodegroup.stack_id
                         or stack_ops.nodegroup_stack_name(view.cluster, nodegroup))

    # --- certificates --------------------------------------------------------------------
    @retry.operation()
    def rotate_ca_certificate(self, res: ClusterResources, view: ClusterView) -> None:
        """Replace every node (batch by batch) so it fetches the new CA; new SA keys."""
        heat = client.heat(res.session())
        cluster = view.cluster
        current = self._current_parameters(heat, cluster.stack_id)
        restore = self._etcd_handover(res, cluster, current)
        params = self._replacement_parameters(
            parameters.cluster_parameters(res, self.profile, view,
                                          parameters.ServiceAccountKeys.generate(), restore),
            current)
        stack_ops.patch(heat, cluster.stack_id, params)
        for ng in view.nodegroups:
            if ng.is_default or not ng.stack_id:
                continue
            ng_current = self._current_parameters(heat, ng.stack_id)
            stack_ops.patch(heat, ng.stack_id, self._nodegroup_replacement(
                res, heat, view, ng, ng_current))

    # --- credentials ---------------------------------------------------------------------
    def check_credential_rotation(self, res: ClusterResources, view: ClusterView) -> None:
        """Pushing a trustee replaces every node: refused, before anything changes, where
        a lone master's etcd data could not be handed over to its replacement."""
        if not parameters.nodes_trustee(res).trust_id:
            return
        current = self._current_parameters(client.heat(res.session()), view.cluster.stack_id)
        if etcd_handover.needed(int(current.get("number_of_masters", 1)),
                                int(current.get("etcd_volume_size", 0))):
            etcd_handover.check_possible(bool(res.url_for("image")))

    @retry.operation()
    def rotate_credential(self, res: ClusterResources, view: ClusterView) -> bool:
        """Give the nodes the cluster's trustee (the row's, just rotated): each stack's
        nodes are replaced batch by batch with user data carrying it, as a CA rotation
        replaces them. A stack whose ``trustee_user_id`` is this trustee already is left
        alone, so a replayed rotation sends nothing twice. False, nothing sent, when the
        nodes hold no trustee (``[trust] cluster_user_trust = false``)."""
        trustee_id = parameters.nodes_trustee(res).user_id
        if not trustee_id:
            return False
        heat = client.heat(res.session())
        cluster = view.cluster
        current = self._current_parameters(heat, cluster.stack_id)
        if current.get("trustee_user_id") != trustee_id:
            full = parameters.cluster_parameters(res, self.profile, view, None,
                                                 self._etcd_handover(res, cluster, current))
            stack_ops.patch(heat, cluster.stack_id, {
                "master_bootstrap_env": full["master_bootstrap_env"],
                "worker_bootstrap_env": full["worker_bootstrap_env"],
                "trustee_user_id": trustee_id,
                "master_generation": upgrade.next_generation(current.get("master_generation")),
                "worker_generation": upgrade.next_generation(current.get("worker_generation")),
            }, rendered=self._render_cluster(view))
        for ng in view.nodegroups:
            if ng.is_default or not ng.stack_id:
                continue
            ng_current = self._current_parameters(heat, ng.stack_id)
            if ng_current.get("trustee_user_id") == trustee_id:
                continue
            full = parameters.nodegroup_parameters(
                res, self.profile, view, ng, stack_ops.live_outputs(heat, cluster.stack_id))
            stack_ops.patch(heat, ng.stack_id, {
                "bootstrap_env": full["bootstrap_env"], "trustee_user_id": trustee_id,
                "generation": upgrade.next_generation(ng_current.get("generation")),
            }, rendered=self._render_nodegroup(view, ng))
        return True

    # --- status --------------------------------------------------------------------------
    def stack_ids(self, view: ClusterView) -> dict[str, str]:
        main = view.cluster.stack_id
        return {ng.uuid: (main if ng.is_default else ng.stack_id)
                for ng in view.nodegroups if (main if ng.is_default else ng.stack_id)}

    def stack_states(self, session: Any, stack_ids: Sequence[str],
                     as_service: bool = False) -> StackPoll:
        return status.stack_states(client.heat(session), stack_ids, as_service)

    def stack_names(self, view: ClusterView) -> dict[str, str]:
        return {ng.uuid: stack_ops.cluster_stack_name(view.cluster) if ng.is_default
                else stack_ops.nodegroup_stack_name(view.cluster, ng)
                for ng in view.nodegroups}

    def stack_create_window(self) -> float:
        """Every attempt of the create waits ``[heat_client] timeout`` for Heat's answer,
        with at most ``[conductor] heat_backoff_max`` between two attempts."""
        attempts = CONF.conductor.heat_attempts
        return (CONF.heat_client.timeout * attempts
                + CONF.conductor.heat_backoff_max * (attempts - 1))

    @retry.operation()
    def remove_orphan_stack(self, session: Any, name: str, project_id: str) -> bool:
        heat = client.heat(session)
        stack = stack_ops.find_in_project(heat, name, project_id)
        if stack is None:
            return True
        if stack.stack_status != "DELETE_IN_PROGRESS":
            LOG.info("Deleting stack %s (%s) of project %s that a create sent before its "
                     "cluster's delete made", name, stack.id, project_id)
            stack_ops.delete(heat, stack.id)
        return False

    def read_outputs(self, res: ClusterResources, view: ClusterView,
                     stack_id: str) -> StackOutputs:
        stack = status.finished_stack(client.heat(res.session()), stack_id)
        return outputs.parse(view, stack)

    def failure_details(self, res: ClusterResources, stack_id: str) -> str:
        return status.failure_summary(client.heat(res.session()), stack_id)

    def get_monitor(self, res: ClusterResources, view: ClusterView) -> K8sMonitor | None:
        labels = parameters.cluster_labels(view)
        if (label_table.parse_bool(labels.get("auto_healing_enabled"))
                and labels.get("auto_healing_controller") == "magnum-auto-healer"):
            return None
        certs = None
        if not view.template.tls_disabled:
            client_certificates = getattr(res, "client_certificates", None)
            certs = client_certificates() if client_certificates else None
        return K8sMonitor(view.cluster.api_address, certs)
