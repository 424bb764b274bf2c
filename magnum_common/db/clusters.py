"""Cluster rows: lookups, the conductor lease and the recorded pending operation."""

from __future__ import annotations

import datetime
from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Row

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api, models
from magnum_common.db.clock import db_now

_CLUSTER = models.Cluster.__table__
_TEMPLATE = models.ClusterTemplate.__table__
_NODEGROUP = models.NodeGroup.__table__

#: Node group columns the cluster views read (counts, addresses, faults).
NODEGROUP_COLUMNS = ("cluster_id", "name", "role", "node_count", "node_addresses",
                     "is_default", "status", "status_reason")
_NODEGROUP_ROWS_OF = sa.select(*(_NODEGROUP.c[name] for name in NODEGROUP_COLUMNS)).where(
    _NODEGROUP.c.cluster_id.in_(sa.bindparam("uuids", expanding=True))
).order_by(_NODEGROUP.c.id)

#: Bookkeeping writes (leases, recorded intent) leave ``updated_at`` as it was: it tells
#: when the cluster itself last changed, and a refused request must not move it.
_UNTOUCHED = {"updated_at": models.Cluster.updated_at}


class ClusterRepository(api.Repository[models.Cluster]):
    model = models.Cluster
    not_found = exception.ClusterNotFound
    not_found_arg = "cluster"
    already_exists = exception.ClusterAlreadyExists
    duplicate_name_msg = (
        "Multiple clusters exist with same name. Please use the cluster uuid instead."
    )
    filterable = (
        "cluster_template_id", "name", "stack_id", "api_address", "project_id", "user_id",
        "status", "uuid", "operation",
    )

    def create_with_nodegroups(
        self,
        context: RequestContext | None,
        values: dict[str, Any],
        nodegroups: list[dict[str, Any]],
        operation_args: dict[str, Any] | None = None,
    ) -> models.Cluster:
        """Insert a cluster, its node groups, the pending create and its operation record
        in one transaction.

        The row exists (with ``operation = cluster_create``) before any RPC is sent, so the
        UUID the API returns always names a row and a lost cast is recoverable; the record's
        UUID is ``operation_args["operation_id"]``.
        """
        from magnum_common.db.operations import operations
        from magnum_common.states import OP_CREATE
        from magnum_common.utils import generate_uuid

        context = context or make_admin_context()  # one context: one transaction
        record_uuid = generate_uuid()
        args = operation_args or {}
        values = {**values, "uuid": values.get("uuid") or generate_uuid(),
                  "operation": OP_CREATE,
                  "operation_args": {**args, "operation_id": record_uuid},
                  "operation_at": api.now()}
        cluster = models.Cluster(**values)
        rows = [models.NodeGroup(**{"uuid": generate_uuid(), **ng,
                                    "cluster_id": values["uuid"]}) for ng in nodegroups]
        try:
            with api.writer(context) as session:
                session.add(cluster)
                session.add_all(rows)
                operations.add(context, values["uuid"], OP_CREATE, args, uuid=record_uuid)
        except api.db_exc.DBDuplicateEntry as exc:
            raise exception.ClusterAlreadyExists(uuid=values["uuid"]) from exc
        return cluster

    # --- node groups in bulk (one query for a whole page) ---------------------------------
    def nodegroups_of(
        self, context: RequestContext | None, cluster_uuids: list[str]
    ) -> dict[str, list[models.NodeGroup]]:
        """Node groups of many clusters in one query, keyed by cluster UUID."""
        result: dict[str, list[models.NodeGroup]] = defaultdict(list)
        if not cluster_uuids:
            return result
        query = (
            sa.select(models.NodeGroup)
            .where(models.NodeGroup.cluster_id.in_(sa.bindparam("uuids", expanding=True)))
            .order_by(models.NodeGroup.id)
        )
        with api.reader(context) as session:
            for ng in session.scalars(query, {"uuids": list(cluster_uuids)}):
                result[ng.cluster_id].append(ng)
        return result

    def row_columns(self, detail: bool) -> sa.Select:
        """Every column; ``detail`` adds the labels of the cluster's template
        (``template_labels``), which the detailed view merges under the cluster's own."""
        if not detail:
            return sa.select(*_CLUSTER.c)
        return sa.select(*_CLUSTER.c, _TEMPLATE.c.labels.label("template_labels")).select_from(
            _CLUSTER.outerjoin(_TEMPLATE, _TEMPLATE.c.uuid == _CLUSTER.c.cluster_template_id))

    def nodegroup_rows(self, conn: sa.Connection,
                       cluster_uuids: list[str]) -> dict[str, list[Row]]:
        """:meth:`nodegroups_of` as plain rows of :data:`NODEGROUP_COLUMNS`, on a
        :func:`api.reading` connection."""
        result: dict[str, list[Row]] = defaultdict(list)
        if not cluster_uuids:
            return result
        for row in conn.execute(_NODEGROUP_ROWS_OF, {"uuids": cluster_uuids}):
            result[row.cluster_id].append(row)
        return result

    def count_template_users(self, context: RequestContext | None, template_uuid: str) -> int:
        """Clusters of any project that reference a template (delete / patch guard)."""
        query = sa.select(sa.func.count()).select_from(models.Cluster).where(
            models.Cluster.cluster_template_id == template_uuid
        )
        with api.reader(context) as session:
            return int(session.scalar(query) or 0)

    def stats(self, context: RequestContext | None,
              project_id: str | None = None) -> tuple[int, int]:
        """(clusters, nodes) for one project or all: nodes = sum of node group counts."""
        clusters = sa.select(sa.func.count()).select_from(models.Cluster)
        nodes = sa.select(sa.func.coalesce(sa.func.sum(models.NodeGroup.node_count), 0))
        if project_id:
            clusters = clusters.where(models.Cluster.project_id == project_id)
            nodes = nodes.where(models.NodeGroup.project_id == project_id)
        with api.reader(context) as session:
            return int(session.scalar(clusters) or 0), int(session.scalar(nodes) or 0)

    # --- conductor lease ---------------------------------------------------------------------
    def acquire_lock(self, uuid: str, owner: str, lease_seconds: int) -> bool:
        """Take the cluster's lease if it is free, expired, or already ours.

        Expiry is set and compared on the database server's clock, in the UPDATE itself
        (``clock.db_now``): a conductor whose clock runs ahead cannot take a live lease.
        """
        free = sa.or_(
            models.Cluster.lock_owner.is_(None),
            models.Cluster.lock_owner == owner,
            models.Cluster.lock_expires_at.is_(None),
            models.Cluster.lock_expires_at < db_now(),
        )
        return self.compare_and_swap(
            None, uuid, {},
            {"lock_owner": owner, "lock_expires_at": db_now(lease_seconds), **_UNTOUCHED},
            extra_where=[free],
        )

    def renew_lock(self, uuid: str, owner: str, lease_seconds: int) -> bool:
        """Extend our lease (server clock); False means we lost it and must stop working
        on the cluster."""
        return self.compare_and_swap(
            None, uuid, {"lock_owner": owner},
            {"lock_expires_at": db_now(lease_seconds), **_UNTOUCHED},
        )

    def release_lock(self, uuid: str, owner: str) -> bool:
        return self.compare_and_swap(
            None, uuid, {"lock_owner": owner},
            {"lock_owner": None, "lock_expires_at": None, **_UNTOUCHED}
        )

    # --- durable intent ----------------------------------------------------------------------
    def record_operation(
        self,
        context: RequestContext | None,
        uuid: str,
        operation: str,
        args: dict[str, Any] | None = None,
        values: dict[str, Any] | None = None,
        expected: dict[str, Any] | None = None,
    ) -> bool:
        """Record what the API accepted, atomically with any status change it implies.

        Refused (False) while another operation is still pending on the cluster (on the
        row, or as an open operation record) or when ``expected`` no longer holds, so two
        requests can never both be accepted.
        """
        payload = {"operation": operation, "operation_args": args or {},
                   "operation_at": api.now(), **_UNTOUCHED, **(values or {})}
        record = models.ClusterOperation
        nothing_open = ~sa.exists().where(record.cluster_id == uuid,
                                          record.state.in_(sorted(states.OPERATION_OPEN)))
        return self.compare_and_swap(
            context, uuid, {"operation": None, **(expected or {})}, payload,
            extra_where=[nothing_open])

    def clear_operation(self, uuid: str, operation: str) -> bool:
        return self.compare_and_swap(
            None, uuid, {"operation": operation},
            {"operation": None, "operation_args": {}, "operation_at": None, **_UNTOUCHED},
        )

    def pending_operations(self, older_than: datetime.datetime,
                           limit: int = 100) -> list[models.Cluster]:
        """Clusters whose recorded operation nobody is working on (lost cast, dead conductor);
        a lease counts as expired by the database server's clock."""
        query = (
            sa.select(models.Cluster)
            .where(models.Cluster.operation.is_not(None))
            .where(models.Cluster.operation_at < older_than)
            .where(sa.or_(models.Cluster.lock_owner.is_(None),
                          models.Cluster.lock_expires_at < db_now()))
            .order_by(models.Cluster.operation_at)
            .limit(limit)
        )
        with api.reader() as session:
            return list(session.scalars(query).all())

    def in_statuses(self, statuses: list[str] | frozenset[str]) -> list[models.Cluster]:
        """Every cluster (all projects) in one of ``statuses``; for periodic tasks."""
        query = sa.select(models.Cluster).where(models.Cluster.status.in_(list(statuses)))
        with api.reader() as session:
            return list(session.scalars(query).all())


clusters = ClusterRepository()
