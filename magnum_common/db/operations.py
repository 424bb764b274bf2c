"""Operation records: one per request the API accepted on a cluster, from acceptance to
outcome (pending, running, then succeeded, failed or superseded).

A record is written in the same transaction as the move of its target to ``*_IN_PROGRESS``,
so the UUID a 202 names always exists and the first read after it shows the new status. The
conductor marks it running when it starts and writes the outcome; the status sync finishes
the records whose stack work it saw end. Records outlive their cluster (the history of a
deleted cluster stays readable in the database).

Records are not scoped by project: who may read them is decided by the cluster they belong
to (the caller looks the cluster up first, with its own scoping).
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa
import sqlalchemy.orm

from magnum_common import exception, states
from magnum_common.context import RequestContext, make_admin_context
from magnum_common.db import api, models
from magnum_common.db.clock import db_now
from magnum_common.utils import generate_uuid

_OPEN = sorted(states.OPERATION_OPEN)
_FINAL = (states.OPERATION_SUCCEEDED, states.OPERATION_FAILED, states.OPERATION_SUPERSEDED)

#: How a running record's ``progress`` names the step its conductor started last.
STEP_PROGRESS = "step "


class OperationRepository(api.Repository[models.ClusterOperation]):
    model = models.ClusterOperation
    not_found = exception.OperationNotFound
    not_found_arg = "operation"
    project_scoped = False
    filterable = ("cluster_id", "nodegroup_id", "kind", "state")

    def add(self, context: RequestContext | None, cluster_uuid: str, kind: str,
            arguments: dict[str, Any], nodegroup_uuid: str | None = None,
            state: str = states.OPERATION_PENDING, uuid: str | None = None,
            reason: str | None = None) -> models.ClusterOperation:
        """Insert a record; joins the caller's transaction when it uses the same context."""
        now = api.now()
        final = state in _FINAL
        values = {
            "uuid": uuid or generate_uuid(), "cluster_id": cluster_uuid,
            "nodegroup_id": nodegroup_uuid, "kind": kind, "arguments": arguments,
            "state": state, "accepted_at": now,
            "started_at": now if final else None, "finished_at": now if final else None,
            "result_reason": reason,
            "project_id": getattr(context, "project_id", None),
            "user_id": getattr(context, "user_id", None),
            "request_id": getattr(context, "request_id", None),
        }
        row = models.ClusterOperation(**values)
        with api.writer(context) as session:
            session.add(row)
        return row

    def get_in_cluster(self, context: RequestContext | None, cluster_uuid: str,
                       uuid: str) -> models.ClusterOperation:
        query = sa.select(self.model).where(self.model.cluster_id == cluster_uuid,
                                            self.model.uuid == uuid)
        with api.reader(context) as session:
            row = session.scalars(query).first()
        if row is None:
            self._raise_not_found(uuid)
        return row

    def list_in_cluster(self, context: RequestContext | None, cluster_uuid: str,
                        limit: int | None = None, marker: str | None = None,
                        sort_key: str | None = None,
                        sort_dir: str | None = None) -> list[models.ClusterOperation]:
        """A page of the cluster's records, newest first unless asked otherwise."""
        if marker is not None:
            self.get_in_cluster(context, cluster_uuid, marker)
        return self.list(context, {"cluster_id": cluster_uuid}, limit, marker,
                         sort_key, sort_dir or "desc")

    # --- the conductor's side ----------------------------------------------------------
    def start(self, uuid: str, progress: str | None = None) -> bool:
        """pending -> running (a replay of a running record changes nothing)."""
        return self.compare_and_swap(None, uuid, {"state": states.OPERATION_PENDING},
                                     {"state": states.OPERATION_RUNNING,
                                      "started_at": api.now(), "progress": progress})

    def note(self, uuid: str, progress: str) -> bool:
        """What a running record is doing now (e.g. waiting for Heat), and when, by the
        database server's clock (``updated_at``): what a DELETE measures a delete's
        progress by (see ``[conductor] delete_takeover_after``)."""
        return self.compare_and_swap(None, uuid, {"state": _OPEN},
                                     {"progress": progress, "updated_at": db_now()})

    def note_running(self, cluster_uuid: str, progress: str) -> int:
        """:meth:`note` for the running records of a cluster (work the status sync does
        for them, e.g. the end of a delete)."""
        stmt = (sa.update(self.model)
                .where(self.model.cluster_id == cluster_uuid,
                       self.model.state == states.OPERATION_RUNNING)
                .values(progress=progress, updated_at=db_now())
                .execution_options(synchronize_session=False))
        with api.writer() as session:
            return session.execute(stmt).rowcount

    def finish(self, uuid: str, state: str, reason: str | None = None,
               context: RequestContext | None = None) -> bool:
        """Record the outcome of an open record; False if it had one already. ``context``:
        join the caller's transaction (the row's move out of progress)."""
        now = api.now()
        return self.compare_and_swap(
            context, uuid, {"state": _OPEN},
            {"state": state, "finished_at": now, "result_reason": reason,
             "started_at": sa.func.coalesce(self.model.started_at, now)})

    def finish_running(self, cluster_uuid: str, state: str, reason: str | None = None,
                       context: RequestContext | None = None) -> int:
        """The outcome of every running record of a cluster (the sync saw its stacks end);
        ``context``: join the caller's transaction."""
        now = api.now()
        stmt = (sa.update(self.model)
                .where(self.model.cluster_id == cluster_uuid,
                       self.model.state == states.OPERATION_RUNNING)
                .values(state=state, finished_at=now, result_reason=reason,
                        updated_at=now)
                .execution_options(synchronize_session=False))
        with api.writer(context) as session:
            return session.execute(stmt).rowcount

    def supersede(self, context: RequestContext | None, uuids: list[str],
                  reason: str, observed: dict[str, datetime.datetime | None] | None = None
                  ) -> bool:
        """End open records because a DELETE replaces them (pending: never to run; running:
        its conductor is stopped); False, nothing written, when one of them has ended
        meanwhile, or when a record of ``observed`` was written since it was read (its
        ``updated_at``: the delete it would take over made progress). Joins the caller's
        transaction when it uses the same context."""
        if not uuids:
            return True
        now = api.now()
        unchanged = [sa.or_(self.model.uuid != uuid, self.model.updated_at == at)
                     if at is not None else
                     sa.or_(self.model.uuid != uuid, self.model.updated_at.is_(None))
                     for uuid, at in (observed or {}).items()]
        stmt = (sa.update(self.model)
                .where(self.model.uuid.in_(uuids), self.model.state.in_(_OPEN), *unchanged)
                .values(state=states.OPERATION_SUPERSEDED, finished_at=now,
                        result_reason=reason, updated_at=now,
                        started_at=sa.func.coalesce(self.model.started_at, now))
                .execution_options(synchronize_session=False))
        with api.writer(context) as session:
            return session.execute(stmt).rowcount == len(uuids)

    # --- effects -----------------------------------------------------------------------
    def effect(self, uuid: str, name: str, state: str, **detail: Any) -> None:
        """Record the record's effect ``name`` as ``state``, merged with ``detail`` (a dict
        value is merged one level deep: references learned one by one)."""
        with api.writer() as session:
            row = session.scalars(sa.select(self.model).where(self.model.uuid == uuid)
                                  .with_for_update()).first()
            if row is None:
                return
            effects = dict(row.effects or {})
            entry = dict(effects.get(name) or {})
            for key, value in detail.items():
                if isinstance(value, dict) and isinstance(entry.get(key), dict):
                    value = {**entry[key], **value}
                entry[key] = value
            effects[name] = {**entry, "state": state}
            row.effects = effects
            row.updated_at = db_now()  # progress, on the clock note() uses

    def effects_of(self, uuid: str) -> dict[str, Any]:
        """The effects the record has journaled, by name."""
        with api.reader() as session:
            row = session.scalars(sa.select(self.model.effects)
                                  .where(self.model.uuid == uuid)).first()
        return dict(row or {})

    def journaled_effects(self, cluster_uuid: str) -> list[tuple[str, dict[str, Any]]]:
        """(name, detail) of every effect any record of the cluster journaled, pending or
        done, oldest record first (e.g. every trustee the cluster ever had)."""
        with api.reader() as session:
            rows = session.scalars(sa.select(self.model.effects).where(
                self.model.cluster_id == cluster_uuid).order_by(self.model.id)).all()
        return [(name, entry) for effects in rows for name, entry in (effects or {}).items()]

    def pending_effects(self, cluster_uuid: str) -> list[tuple[str, dict[str, Any]]]:
        """(name, detail) of every effect any record of the cluster left pending: sent, and
        never confirmed (its conductor died in between)."""
        return [(name, entry) for name, entry in self.journaled_effects(cluster_uuid)
                if entry.get("state") == states.EFFECT_PENDING]

    def open_of(self, cluster_uuid: str) -> list[models.ClusterOperation]:
        """The cluster's pending and running records, oldest first."""
        query = (sa.select(self.model)
                 .where(self.model.cluster_id == cluster_uuid, self.model.state.in_(_OPEN))
                 .order_by(self.model.id))
        with api.reader() as session:
            return list(session.scalars(query).all())

    # --- the queue -----------------------------------------------------------------------
    def queued_targets(self, cluster_uuid: str) -> set[str]:
        """Node groups that queued records have moved already and whose stack work has not
        started: the status sync leaves them as the API wrote them."""
        query = sa.select(self.model.nodegroup_id).where(
            self.model.cluster_id == cluster_uuid,
            self.model.state == states.OPERATION_PENDING,
            self.model.nodegroup_id.is_not(None))
        with api.reader() as session:
            return set(session.scalars(query).all())

    def promote(self, cluster_uuid: str, values: dict[str, Any] | None = None,
                expected: dict[str, Any] | None = None) -> models.ClusterOperation | None:
        """Start the cluster's oldest queued record when nothing else is open on it.

        In one transaction the record becomes the operation recorded on the cluster row (what
        a conductor runs) and the cluster moves to its in-progress status, together with
        ``values`` (what the caller was about to write, e.g. the status sync's final state,
        which becomes the record's ``previous_status``). ``expected``: further conditions
        on the cluster row (the caller's lease). A record whose gate the cluster's status no
        longer passes is failed on the way. Returns the started record, or None.
        """
        context = make_admin_context()
        with api.writer(context) as session:
            cluster = session.scalars(sa.select(models.Cluster).where(
                models.Cluster.uuid == cluster_uuid)).first()
            if cluster is None or cluster.operation is not None:
                return None
            records = list(session.scalars(
                sa.select(self.model).where(self.model.cluster_id == cluster_uuid,
                                            self.model.state.in_(_OPEN))
                .order_by(self.model.id)).all())
            if any(r.state == states.OPERATION_RUNNING for r in records):
                return None
            status = (values or {}).get("status", cluster.status)
            reason = (values or {}).get("status_reason", cluster.status_reason)
            for record in records:
                gate = states.OPERATION_GATES[record.kind]
                if gate is not None and status not in gate:
                    self._refuse(context, record, status)
                    continue
                in_progress, describe = states.ACCEPTED_STATUS[record.kind]
                args = {**(record.arguments or {}), "operation_id": record.uuid,
                        "previous_status": status, "previous_reason": reason,
                        "previous_updated_at": cluster.updated_at.isoformat()
                        if cluster.updated_at else None}
                now = api.now()
                row = models.Cluster
                stmt = sa.update(row).where(row.uuid == cluster_uuid, row.operation.is_(None))
                for key, value in (expected or {}).items():
                    stmt = stmt.where(getattr(row, key) == value)
                stmt = stmt.values({
                    **(values or {}), "operation": record.kind, "operation_args": args,
                    "operation_at": now, "status": in_progress, "status_reason": describe,
                    "updated_at": now}).execution_options(synchronize_session=False)
                if session.execute(stmt).rowcount != 1:
                    return None
                return record
        return None

    def _refuse(self, context: RequestContext, record: models.ClusterOperation,
                status: str | None) -> None:
        """A queued record that cannot run from ``status``: failed, its node group put back."""
        from magnum_common.db.nodegroups import nodegroups

        reason = (f"Refused when its turn came: the cluster was {status}, from which "
                  f"{record.kind} cannot start.")
        self.compare_and_swap(context, record.uuid, {"state": states.OPERATION_PENDING},
                              {"state": states.OPERATION_FAILED, "finished_at": api.now(),
                               "result_reason": reason})
        previous = (record.arguments or {}).get("previous_nodegroup")
        if record.nodegroup_id and previous is not None:
            nodegroups.compare_and_swap(context, record.nodegroup_id, {}, previous)

    def stalled(self, older_than: datetime.datetime, limit: int = 100) -> list[str]:
        """Clusters with queued records that nothing is running or about to run (a lost
        promotion): the reconciler starts their next record."""
        other = sa.orm.aliased(models.ClusterOperation)
        open_running = sa.exists().where(other.cluster_id == models.Cluster.uuid,
                                         other.state == states.OPERATION_RUNNING)
        query = (sa.select(self.model.cluster_id).distinct()
                 .join(models.Cluster, models.Cluster.uuid == self.model.cluster_id)
                 .where(self.model.state == states.OPERATION_PENDING,
                        self.model.accepted_at < older_than,
                        models.Cluster.operation.is_(None), ~open_running)
                 .limit(limit))
        with api.reader() as session:
            return list(session.scalars(query).all())

    def queued_targets_of(self, cluster_uuids: list[str]) -> dict[str, set[str]]:
        """:meth:`queued_targets` of many clusters in one query."""
        result: dict[str, set[str]] = {}
        if not cluster_uuids:
            return result
        query = sa.select(self.model.cluster_id, self.model.nodegroup_id).where(
            self.model.cluster_id.in_(sa.bindparam("uuids", expanding=True)),
            self.model.state == states.OPERATION_PENDING,
            self.model.nodegroup_id.is_not(None))
        with api.reader() as session:
            for start in range(0, len(cluster_uuids), 500):
                for row in session.execute(query, {"uuids": cluster_uuids[start:start + 500]}):
                    result.setdefault(row.cluster_id, set()).add(row.nodegroup_id)
        return result


operations = OperationRepository()
