"""Federation rows (stored and served by the API; no conductor behaviour)."""

from __future__ import annotations

from magnum_common import exception
from magnum_common.db import api, models


class FederationRepository(api.Repository[models.Federation]):
    model = models.Federation
    not_found = exception.FederationNotFound
    not_found_arg = "federation"
    already_exists = exception.FederationAlreadyExists
    duplicate_name_msg = (
        "Multiple federations exist with same name. Please use the federation uuid instead."
    )
    filterable = ("name", "project_id", "hostcluster_id", "status")


federations = FederationRepository()
