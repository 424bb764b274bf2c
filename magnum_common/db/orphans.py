"""Orphan rows: what a cluster delete could not remove after its retries.

The delete records each leftover (a trust, a trustee user, a certificate bundle) with the
identifiers the removal needs and lets the cluster row go; the conductor's sweeper retries
the removal with a growing back-off and drops the row once it succeeded, and
``magnum-status upgrade check`` reports what is still left. A stack is an orphan too when
the delete found none but a stack create had been sent that Heat may still carry out: the
sweeper deletes it if it appears, until the create could no longer land (``detail``).
"""

from __future__ import annotations

import datetime

import sqlalchemy as sa

from magnum_common import exception
from magnum_common.db import api, models
from magnum_common.db.clock import db_now


class OrphanRepository(api.Repository[models.Orphan]):
    model = models.Orphan
    not_found = exception.ResourceNotFound
    project_scoped = False
    filterable = ("kind", "cluster_id", "project_id")

    def record(self, kind: str, ref: str, cluster: object, error: str,
               attempts: int, detail: dict | None = None) -> models.Orphan:
        """An orphan of ``cluster`` (a row or anything with uuid, project_id, user_id);
        ``detail``: what its removal needs beyond ``ref``."""
        return self.create(None, {
            "kind": kind, "ref": ref, "cluster_id": getattr(cluster, "uuid", None),
            "project_id": getattr(cluster, "project_id", None),
            "user_id": getattr(cluster, "user_id", None), "attempts": attempts,
            "last_error": error[:4000], "next_attempt_at": db_now(), "detail": detail})

    def claim_due(self, hold_seconds: int, limit: int = 50) -> list[models.Orphan]:
        """The orphans whose next attempt is due (database clock), each moved out of the
        other sweepers' way for ``hold_seconds`` by a conditional UPDATE this caller won."""
        query = (sa.select(self.model)
                 .where(self.model.next_attempt_at <= db_now())
                 .order_by(self.model.next_attempt_at).limit(limit))
        with api.reader() as session:
            due = list(session.scalars(query).all())
        return [row for row in due if self.compare_and_swap(
            None, row.uuid, {"next_attempt_at": row.next_attempt_at},
            {"next_attempt_at": db_now(hold_seconds)})]

    def failed_again(self, uuid: str, error: str, delay: datetime.timedelta) -> None:
        """Count a failed attempt and put the next one ``delay`` away."""
        seconds = int(delay.total_seconds())
        self.compare_and_swap(None, uuid, {}, {
            "attempts": self.model.attempts + 1, "last_error": error[:4000],
            "next_attempt_at": db_now(seconds)})

    def remove(self, uuid: str) -> None:
        self.destroy_if(None, uuid, {})


orphans = OrphanRepository()
