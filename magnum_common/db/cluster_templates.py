"""Cluster template rows: visibility includes other projects' public templates."""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api, models


class ClusterTemplateRepository(api.Repository[models.ClusterTemplate]):
    model = models.ClusterTemplate
    not_found = exception.ClusterTemplateNotFound
    not_found_arg = "clustertemplate"
    already_exists = exception.ClusterTemplateAlreadyExists
    duplicate_name_msg = (
        "Multiple ClusterTemplates exist with same name. Please use the ClusterTemplate "
        "uuid instead."
    )
    filterable = ("name", "image_id", "project_id", "user_id", "coe", "public", "hidden",
                  "cluster_distro", "server_type")

    def scope(self, query: sa.Select, context: RequestContext | None) -> sa.Select:
        """Lookups by id / uuid / name see every public template, hidden ones included."""
        if api.sees_all_projects(context):
            return query
        own = (models.ClusterTemplate.project_id == context.project_id
               if context.project_id else models.ClusterTemplate.user_id == context.user_id)
        return query.where(sa.or_(own, models.ClusterTemplate.public.is_(True)))

    def _list_scope(self, query: sa.Select, context: RequestContext | None) -> sa.Select:
        """Listings hide public hidden templates of other projects from non-admins."""
        if api.sees_all_projects(context):
            return query
        own = (models.ClusterTemplate.project_id == context.project_id
               if context.project_id else models.ClusterTemplate.user_id == context.user_id)
        public = models.ClusterTemplate.public.is_(True)
        if not (context and context.is_admin):
            public = sa.and_(public, sa.or_(models.ClusterTemplate.hidden.is_(False),
                                            models.ClusterTemplate.hidden.is_(None)))
        return query.where(sa.or_(own, public))

    def list(self, context, filters=None, limit=None, marker=None, sort_key=None, sort_dir=None):
        api.validate_sort(sort_key, sort_dir, self.model)
        query = self._apply_filters(self._list_scope(sa.select(self.model), context), filters)
        with api.reader(context) as session:
            marker_row = None
            if marker is not None:
                marker_row = session.scalars(
                    self._select(context).where(self.model.uuid == marker)
                ).first()
                if marker_row is None:
                    self._raise_not_found(marker)
            return self._paginate(session, query, limit, marker_row, sort_key, sort_dir)


cluster_templates = ClusterTemplateRepository()
