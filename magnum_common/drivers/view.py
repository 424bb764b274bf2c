"""The one shape a driver sees a cluster in: a typed, read-only snapshot of its rows.

Between the request and the backend a cluster used to travel as ORM rows, ``Row`` tuples,
dicts and attribute overlays, all typed ``Any`` at the driver seam. A driver now gets one
:class:`ClusterView`: the cluster, its template and its node groups as frozen dataclasses
holding only the columns a driver may read (no trustee password, no certificate refs, no
lease: those reach it through ``ClusterResources``), plus the template and cluster labels
merged. The conductor builds it from the rows it has just read (:meth:`ClusterView.of`),
so a driver can neither write a row nor see one change under it; what a driver wants to
change comes back as its return value. An upgrade's target is the same type with some
values replaced (:func:`dataclasses.replace`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any, Self

from magnum_common import exception
from magnum_common.drivers import settings


def _copy(value: Any) -> Any:
    """A copy of a JSON column (labels, taints), so the snapshot shares nothing with a row."""
    if isinstance(value, Mapping):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(item) for item in value]
    return value


class _Snapshot:
    """What the three row types share: being filled from a row."""

    @classmethod
    def of(cls, row: Any) -> Self:
        """The snapshot of ``row`` (ORM row, ``Row``, or any object with the same-named
        attributes; a missing attribute reads as None)."""
        return cls(**{f.name: _copy(getattr(row, f.name, None))
                      for f in dataclasses.fields(cls)})  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class TemplateRow(_Snapshot):
    """The columns of a cluster template a driver builds stacks from."""

    uuid: str | None
    name: str | None
    image_id: str | None
    flavor_id: str | None
    master_flavor_id: str | None
    keypair_id: str | None
    external_network_id: str | None
    fixed_network: str | None
    fixed_subnet: str | None
    network_driver: str | None
    volume_driver: str | None
    dns_nameserver: str | None
    docker_volume_size: int | None
    docker_storage_driver: str | None
    cluster_distro: str | None
    coe: str | None
    server_type: str | None
    http_proxy: str | None
    https_proxy: str | None
    no_proxy: str | None
    insecure_registry: str | None
    registry_enabled: bool | None
    tls_disabled: bool | None
    master_lb_enabled: bool | None
    floating_ip_enabled: bool | None
    labels: dict[str, str] | None


@dataclasses.dataclass(frozen=True)
class ClusterRow(_Snapshot):
    """The columns of a cluster a driver reads (its secrets stay with the conductor)."""

    uuid: str
    name: str | None
    project_id: str | None
    user_id: str | None
    cluster_template_id: str | None
    keypair: str | None
    docker_volume_size: int | None
    labels: dict[str, str] | None
    master_flavor_id: str | None
    flavor_id: str | None
    stack_id: str | None
    api_address: str | None
    status: str | None
    create_timeout: int | None
    discovery_url: str | None
    coe_version: str | None
    container_version: str | None
    fixed_network: str | None
    fixed_subnet: str | None
    floating_ip_enabled: bool | None
    master_lb_enabled: bool | None


@dataclasses.dataclass(frozen=True)
class NodeGroupRow(_Snapshot):
    """The columns of a node group a driver reads."""

    uuid: str
    name: str
    project_id: str | None
    role: str | None
    is_default: bool | None
    node_count: int | None
    min_node_count: int | None
    max_node_count: int | None
    flavor_id: str | None
    image_id: str | None
    docker_volume_size: int | None
    labels: dict[str, str] | None
    node_labels: dict[str, str] | None
    node_taints: list[dict[str, Any]] | None
    stack_id: str | None
    status: str | None


@dataclasses.dataclass(frozen=True)
class ClusterView:
    """A cluster as a driver sees it for one request: cluster, template, node groups."""

    cluster: ClusterRow
    template: TemplateRow
    nodegroups: tuple[NodeGroupRow, ...]

    @classmethod
    def of(cls, cluster: Any, template: Any, nodegroups: Iterable[Any]) -> ClusterView:
        """The snapshot of these rows (rows already in a view's types are taken as they are)."""
        return cls(cluster if isinstance(cluster, ClusterRow) else ClusterRow.of(cluster),
                   template if isinstance(template, TemplateRow) else TemplateRow.of(template),
                   tuple(ng if isinstance(ng, NodeGroupRow) else NodeGroupRow.of(ng)
                         for ng in nodegroups))

    @property
    def labels(self) -> dict[str, str]:
        """The template's labels overlaid by the cluster's (a value of None sets nothing);
        a driver adds its own defaults under them."""
        return {**(self.template.labels or {}),
                **{key: value for key, value in (self.cluster.labels or {}).items()
                   if value is not None}}

    @property
    def uuid(self) -> str:
        return self.cluster.uuid

    def nodegroup(self, uuid: str) -> NodeGroupRow:
        """The node group ``uuid`` of this cluster (``NodeGroupNotFound`` when absent)."""
        for ng in self.nodegroups:
            if ng.uuid == uuid:
                return ng
        raise exception.NodeGroupNotFound(nodegroup=uuid)

    @property
    def master(self) -> NodeGroupRow:
        """The default master group."""
        return settings.default_master(self.nodegroups)

    @property
    def worker(self) -> NodeGroupRow:
        """The default worker group."""
        return settings.default_worker(self.nodegroups)
