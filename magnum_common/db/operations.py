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

from typing import Any

import sqlalchemy as sa

from magnum_common import exception, states
from magnum_common.context import RequestContext
from magnum_common.db import api, models
from magnum_common.utils import generate_uuid

_OPEN = sorted(states.OPERATION_OPEN)
_FINAL = (states.OPERATION_SUCCEEDED, states.OPERATION_FAILED, states.OPERATION_SUPERSEDED)


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
        """What a running record is doing now (e.g. waiting for Heat)."""
        return self.compare_and_swap(None, uuid, {"state": _OPEN}, {"progress": progress})

    def finish(self, uuid: str, state: str, reason: str | None = None) -> bool:
        """Record the outcome of an open record; False if it had one already."""
        now = api.now()
        return self.compare_and_swap(
            None, uuid, {"state": _OPEN},
            {"state": state, "finished_at": now, "result_reason": reason,
             "started_at": sa.func.coalesce(self.model.started_at, now)})

    def finish_running(self, cluster_uuid: str, state: str,
                       reason: str | None = None) -> int:
        """The outcome of every running record of a cluster (the sync saw its stacks end)."""
        now = api.now()
        stmt = (sa.update(self.model)
                .where(self.model.cluster_id == cluster_uuid,
                       self.model.state == states.OPERATION_RUNNING)
                .values(state=state, finished_at=now, result_reason=reason,
                        updated_at=now)
                .execution_options(synchronize_session=False))
        with api.writer() as session:
            return session.execute(stmt).rowcount

    def open_of(self, cluster_uuid: str) -> list[models.ClusterOperation]:
        """The cluster's pending and running records, oldest first."""
        query = (sa.select(self.model)
                 .where(self.model.cluster_id == cluster_uuid, self.model.state.in_(_OPEN))
                 .order_by(self.model.id))
        with api.reader() as session:
            return list(session.scalars(query).all())


operations = OperationRepository()
