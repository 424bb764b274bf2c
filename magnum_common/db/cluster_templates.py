"""Cluster template rows: visibility includes other projects' public templates."""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api, models, scoping


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

    def visible(self, context: RequestContext | None) -> sa.ColumnElement[bool] | None:
        """Lookups by id / uuid / name see every public template, hidden ones included."""
        return scoping.template_lookup(scoping.kind(context))

    def list(self, context, filters=None, limit=None, marker=None, sort_key=None, sort_dir=None):
        """Listings hide public hidden templates of other projects from non-admins."""
        api.validate_sort(sort_key, sort_dir, self.model)
        rule = scoping.template_listing(scoping.kind(context), bool(context and context.is_admin))
        query = self._apply_filters(scoping.restrict(sa.select(self.model), rule, context),
                                    filters)
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
