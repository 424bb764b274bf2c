"""``GET /v1/mservices``: the conductors and whether they are alive."""

from __future__ import annotations

from magnum_api import policy
from magnum_api.controllers import base
from magnum_api.schemas import misc
from magnum_common.db import api as db_api
from magnum_common.db import services


class MagnumServicesController(base.RestController):

    @base.operation("GET", "/v1/mservices", "List the conductors", "mservices",
                    responses={200: base.Response("The conductors.", misc.SERVICES_VIEW)},
                    policy=("magnum-service:get_all",))
    def get_all(self, **_):
        ctx = base.context()
        policy.authorize(ctx, "magnum-service:get_all")
        rows = services.magnum_services.list_all()
        now = db_api.server_now()  # heartbeats are written on the database's clock
        return base.respond({"mservices": [misc.service_view(row, services.is_up(row, now))
                                           for row in rows]})
