"""Node group rows, always looked up inside one cluster."""

from __future__ import annotations

import sqlalchemy as sa

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db import api, models, scoping


class NodeGroupRepository(api.Repository[models.NodeGroup]):
    model = models.NodeGroup
    not_found = exception.NodeGroupNotFound
    not_found_arg = "nodegroup"
    already_exists = exception.NodeGroupAlreadyExists
    duplicate_name_msg = (
        "Multiple nodegroups exist with same name. Please use the nodegroup uuid instead."
    )
    filterable = ("role", "is_default", "status", "cluster_id", "name", "stack_id")

    def kind(self, context: RequestContext | None) -> str:
        """Any admin sees every project's node groups."""
        return scoping.kind(context, admin_sees_all=True)

    def get_in_cluster(
        self, context: RequestContext | None, cluster_uuid: str, ident: str
    ) -> models.NodeGroup:
        """By UUID when it looks like one, else by name, inside ``cluster_uuid``."""
        column = models.NodeGroup.uuid if api.is_uuid_like(ident) else models.NodeGroup.name
        query = self._select(context).where(
            models.NodeGroup.cluster_id == cluster_uuid, column == ident
        )
        with api.reader(context) as session:
            row = session.scalars(query).first()
        if row is None:
            self._raise_not_found(ident)
        return row

    def list_in_cluster(
        self,
        context: RequestContext | None,
        cluster_uuid: str,
        filters: dict | None = None,
        limit: int | None = None,
        marker: str | None = None,
        sort_key: str | None = None,
        sort_dir: str | None = None,
    ) -> list[models.NodeGroup]:
        return self.list(context, {**(filters or {}), "cluster_id": cluster_uuid},
                         limit, marker, sort_key, sort_dir)

    def destroy_all_of(self, cluster_uuid: str) -> int:
        with api.writer() as session:
            result = session.execute(
                sa.delete(models.NodeGroup).where(models.NodeGroup.cluster_id == cluster_uuid)
            )
        return result.rowcount


nodegroups = NodeGroupRepository()
