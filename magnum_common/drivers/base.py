"""The driver interface: what the conductor asks of a driver, and what it hands over.

The conductor owns the cluster's lifecycle (state machine, lease, trust, certificates,
status sync); a driver owns the translation of a cluster, its template and its node groups
into stacks on its backend (Heat for the shipped drivers), and asking the backend how those
stacks are doing. The conductor passes a ``view.ClusterView`` (a frozen snapshot of the
rows, the one shape a driver sees a cluster in) plus a ``ClusterResources`` giving the
driver what it may need from the outside world; the driver
returns what changed (stack ids, stack states, parsed outputs) and never writes the
database itself. Transient backend failures are the driver's to retry; a change the
backend refuses because the stack is still busy with an earlier one raises
``magnum_common.exception.StackBusy``.
"""

from __future__ import annotations

import abc
import dataclasses
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol

from magnum_common import exception
from magnum_common.drivers.view import ClusterRow, ClusterView, NodeGroupRow, TemplateRow


@dataclasses.dataclass(frozen=True)
class Provides:
    """One (server_type, os, coe) tuple a driver serves."""

    server_type: str
    os: str
    coe: str


@dataclasses.dataclass(frozen=True)
class TrusteeCredentials:
    """The cluster's trustee, decrypted by the conductor for the stack parameters."""

    user_id: str | None
    username: str | None
    password: str | None
    domain_id: str | None
    trust_id: str | None


@dataclasses.dataclass
class StackOutputs:
    """What a driver read from a stack's outputs / parameters, ready for the DB rows.

    ``node_addresses`` maps node group UUIDs to their addresses; fields left ``None`` are
    not changed.
    """

    api_address: str | None = None
    coe_version: str | None = None
    container_version: str | None = None
    node_addresses: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    node_counts: dict[str, int] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class StackState:
    """One stack as its backend reports it, in the cluster status vocabulary."""

    id: str
    #: ``CREATE_IN_PROGRESS``, ``UPDATE_FAILED``, ... (magnum_common.states).
    status: str
    reason: str | None = None


@dataclasses.dataclass
class StackPoll:
    """The answer to ``Driver.stack_states``: the stacks found, and what it cost."""

    states: dict[str, StackState] = dataclasses.field(default_factory=dict)
    #: Requests sent to the backend (the status sync reports them).
    requests: int = 0


class ClusterResources(Protocol):
    """What the conductor provides to a driver for one operation on one cluster."""

    context: Any  # magnum_common.context.RequestContext acting for the cluster owner
    #: The session is the service's (a delete whose owner's trust and token are refused):
    #: an admin outside the cluster's project, who finds stacks by name across projects.
    as_service: bool

    def session(self) -> Any:
        """A keystoneauth1 session acting for the cluster owner in the cluster's project.
        Ask for it at each attempt: it raises once the work must stop (a DELETE took the
        cluster over), so a retried request is not sent again."""

    def url_for(self, service_type: str, interface: str = "public") -> str | None:
        """The catalog endpoint of a service, or None when the catalog lacks it."""

    def trustee(self) -> TrusteeCredentials:
        """The cluster's trustee and trust."""

    def ca_private_key(self) -> str | None:
        """The cluster CA's private key (PEM), for labels that need it on the nodes. During
        a create it may first wait for the certificates to be stored: the conductor sends
        the stack before storing them unless a driver asks for this."""

    def keypair_public_key(self, name: str | None) -> str | None:
        """The public half of a Nova keypair, or None when unknown / Nova absent."""

    def client_certificates(self) -> tuple[str, str, str] | None:
        """(CA PEM, client certificate PEM, client key PEM) for reaching the cluster's API as
        an admin (health monitoring); None when the cluster has no certificates yet."""


class Monitor(Protocol):
    def poll_health(self) -> tuple[str, dict[str, Any]]:
        """(health_status, health_status_reason); never raises for an unreachable API."""


class Driver(abc.ABC):
    """A COE driver. It sees a cluster as a ``ClusterView``; node group arguments are
    groups of that view."""

    #: Entry-point name in the ``magnum.drivers`` group.
    name: ClassVar[str] = ""
    #: Beta drivers must be listed in ``[drivers] enabled_beta_drivers``.
    beta: ClassVar[bool] = False
    #: Where the driver's stacks live. The status sync asks one driver per project and
    #: stack service about all the stacks of that project's clusters at once.
    stack_service: ClassVar[str] = ""

    @property
    @abc.abstractmethod
    def provides(self) -> list[Provides]:
        """The (server_type, os, coe) tuples this driver serves."""

    def get_driver_type(self) -> str:
        return self.name

    def supports(self, operation: str) -> bool:
        """Whether the driver implements an optional operation (``rotate_ca_certificate``,
        ``rotate_credential``) rather than inheriting the refusal."""
        return getattr(type(self), operation) is not getattr(Driver, operation)

    # --- cluster ---------------------------------------------------------------------------
    @abc.abstractmethod
    def create_cluster(self, res: ClusterResources, view: ClusterView,
                       timeout_mins: int) -> str:
        """Create the cluster's stack; return its id.

        Idempotent: when a stack of this cluster already exists (a retried or recovered
        create), return its id instead of creating a second one.
        """

    @abc.abstractmethod
    def resize_cluster(self, res: ClusterResources, view: ClusterView,
                       nodegroup: NodeGroupRow, node_count: int,
                       nodes_to_remove: list[str], rollback: bool = False) -> None:
        """Scale one node group to ``node_count``, removing ``nodes_to_remove`` first."""

    @abc.abstractmethod
    def upgrade_cluster(self, res: ClusterResources, view: ClusterView,
                        new_template: TemplateRow, nodegroup: NodeGroupRow,
                        max_batch_size: int) -> None:
        """Roll ``nodegroup`` (masters first for default groups) to ``new_template``."""

    def upgraded_labels(self, row: ClusterRow | NodeGroupRow,
                        new_template: TemplateRow) -> dict[str, str]:
        """The labels a cluster or rolled node group carries after ``upgrade_cluster``.

        The conductor stores them, so later updates build stacks at the new versions.
        """
        return {**(row.labels or {}), **(new_template.labels or {})}

    @abc.abstractmethod
    def delete_cluster(self, res: ClusterResources, view: ClusterView) -> None:
        """Delete every stack of the cluster; a missing stack is not an error."""

    @abc.abstractmethod
    def find_stacks(self, res: ClusterResources, view: ClusterView,
                    nodegroups: Sequence[NodeGroupRow] | None = None) -> dict[str, str]:
        """Map each node group UUID (of ``nodegroups``, by default all of the view's) to
        its live stack, found by the recorded id or, when
        none was recorded (a create whose answer was lost, or superseded by a DELETE before
        it saved the id), by the name the driver gives its stacks. Stacks that are gone are
        left out; the delete then has nothing to wait for."""

    # --- node groups -----------------------------------------------------------------------
    @abc.abstractmethod
    def create_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> str:
        """Create a node group's stack (idempotent as create_cluster); return its id."""

    @abc.abstractmethod
    def update_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> None:
        """Apply a node group's changed settings to its nodes (node labels and taints);
        min/max counts need no stack change. Idempotent: settings the nodes have already
        are not applied twice."""

    @abc.abstractmethod
    def delete_nodegroup(self, res: ClusterResources, view: ClusterView,
                         nodegroup: NodeGroupRow) -> None:
        """Delete a node group's stack; a missing stack is not an error."""

    # --- certificates and credentials ------------------------------------------------------
    def rotate_ca_certificate(self, res: ClusterResources, view: ClusterView) -> None:
        raise exception.NotSupported(operation="Rotating the CA certificate")

    def check_credential_rotation(self, res: ClusterResources, view: ClusterView) -> None:
        """Refuse (NotSupported) a rotation ``rotate_credential`` could not carry out,
        before the conductor creates the new trustee; by default every rotation can."""
        return None

    def rotate_credential(self, res: ClusterResources, view: ClusterView) -> bool:
        """Give the nodes the cluster's trustee and trust (the row's, just replaced by the
        conductor); True when that started stack work the conductor waits for, False when
        the nodes hold none. Idempotent: nodes that have them already are left alone."""
        raise exception.NotSupported(operation="Rotating the cluster credentials")

    # --- status ----------------------------------------------------------------------------
    @abc.abstractmethod
    def stack_ids(self, view: ClusterView) -> dict[str, str]:
        """Map each node group UUID to the stack that holds it."""

    @abc.abstractmethod
    def stack_states(self, session: Any, stack_ids: Sequence[str],
                     as_service: bool = False) -> StackPoll:
        """The states of ``stack_ids`` (stacks of one project) in as few requests as the
        backend allows; stacks it does not know, or has deleted, are left out.

        ``session`` (keystoneauth1) acts in the stacks' project, or is the service's own
        when ``as_service`` (no cluster of the project has a usable trust).
        """

    def stacks_gone(self, res: ClusterResources, stack_ids: Sequence[str]) -> bool:
        """Whether every stack of ``stack_ids`` is confirmed gone by a lookup of its own
        (Heat: ``stacks.get`` answers 404 or DELETE_COMPLETE). A stack merely missing from
        a list is no proof: rows and credentials are destroyed only after this."""
        return not self.stack_states(res.session(), list(stack_ids), as_service=True).states

    # --- stacks a delete may have missed -----------------------------------------------------
    def stack_names(self, view: ClusterView) -> dict[str, str]:
        """Map each node group UUID to the name its stack has or gets (what ``find_stacks``
        looks for when no id was saved); {} for a driver whose stacks have no such name."""
        return {}

    def stack_create_window(self) -> float:
        """Seconds after which a stack create sent before now can no longer make a stack
        (the request's timeout with its retries): how long a delete that found no stack
        keeps watching for one (a stack orphan)."""
        return 0.0

    def remove_orphan_stack(self, session: Any, name: str, project_id: str) -> bool:
        """As the service (``session``): delete the live stack called ``name`` in
        ``project_id`` if there is one. True when no stack of that name exists, False
        while one does (its delete sent now or already under way)."""
        raise exception.NotSupported(operation="Deleting an orphaned stack")

    @abc.abstractmethod
    def read_outputs(self, res: ClusterResources, view: ClusterView,
                     stack_id: str) -> StackOutputs:
        """Read a finished stack (one of the cluster's) into row values."""

    def failure_details(self, res: ClusterResources, stack_id: str) -> str:
        """What failed inside a failed stack, for the status reason ('' when unknown)."""
        return ""

    def get_monitor(self, res: ClusterResources, view: ClusterView) -> Monitor | None:
        return None

    # --- validation (used by the API before anything is recorded) --------------------------
    def validate_master_size(self, master_count: int) -> None:
        if master_count < 1 or master_count % 2 == 0:
            raise exception.MasterNGSizeInvalid(requested_size=master_count)

    def trust_features(self, labels: dict[str, str] | None,
                       template: TemplateRow) -> list[str]:
        """The features of a cluster with these labels (on ``template``) that call
        OpenStack from its nodes through the trust, as ``magnum_common.trust_roles`` names
        them (``cloud_provider``, ``cinder_csi``...): the trust delegates their roles."""
        return []

    def validate_master_resize(self, node_count: int) -> None:
        raise exception.MasterNGResizeNotSupported()

    def validate_labels(self, labels: dict[str, str]) -> None:  # noqa: B027
        """Reject unknown values of enumerated labels (InvalidParameterValue)."""
