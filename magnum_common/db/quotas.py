"""Quota rows: a hard limit per (project, resource); the integer id is the list marker."""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api, models


class QuotaRepository(api.Repository[models.Quota]):
    model = models.Quota
    not_found = exception.QuotaNotFound
    not_found_arg = "msg"
    already_exists = exception.QuotaAlreadyExists
    filterable = ("project_id", "resource")

    def get_for(self, context: RequestContext | None, project_id: str,
                resource: str) -> models.Quota:
        query = sa.select(models.Quota).where(
            models.Quota.project_id == project_id, models.Quota.resource == resource)
        with api.reader(context) as session:
            row = session.scalars(query).first()
        if row is None:
            raise exception.QuotaNotFound(msg=f"project_id {project_id} resource {resource}")
        return row

    def list(self, context, filters=None, limit=None, marker=None, sort_key=None, sort_dir=None):
        """Quotas page by integer ``id`` markers, unlike every other collection."""
        api.validate_sort(sort_key, sort_dir, self.model)
        query = self._apply_filters(self._select(context), filters)
        with api.reader(context) as session:
            marker_row = None
            if marker is not None:
                marker_row = session.scalars(
                    sa.select(models.Quota).where(models.Quota.id == int(marker))).first()
                if marker_row is None:
                    raise exception.QuotaNotFound(msg=f"id {marker}")
            return self._paginate(session, query, limit, marker_row, sort_key, sort_dir)

    def update_for(self, context, project_id: str, resource: str, hard_limit: int) -> models.Quota:
        with api.writer(context) as session:
            row = session.scalars(sa.select(models.Quota).where(
                models.Quota.project_id == project_id,
                models.Quota.resource == resource).with_for_update()).first()
            if row is None:
                raise exception.QuotaNotFound(msg=f"project_id {project_id} resource {resource}")
            row.hard_limit = hard_limit
        return row

    def delete_for(self, context, project_id: str, resource: str) -> None:
        with api.writer(context) as session:
            deleted = session.execute(sa.delete(models.Quota).where(
                models.Quota.project_id == project_id,
                models.Quota.resource == resource)).rowcount
        if not deleted:
            raise exception.QuotaNotFound(msg=f"project_id {project_id} resource {resource}")


quotas = QuotaRepository()
