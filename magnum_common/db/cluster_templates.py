"""Cluster template rows: visibility includes other projects' public templates."""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import exception
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

    def rule(self, kind_: str) -> sa.ColumnElement[bool] | None:
        """Lookups by id / uuid / name see every public template, hidden ones included."""
        return scoping.template_lookup(kind_)

    def listing_rule(self, kind_: str, admin: bool) -> sa.ColumnElement[bool] | None:
        """Listings hide public hidden templates of other projects from non-admins."""
        return scoping.template_listing(kind_, admin)


cluster_templates = ClusterTemplateRepository()
