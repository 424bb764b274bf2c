"""``GET /v1/mservices``: every conductor, up or down by its heartbeat (admins only)."""

from __future__ import annotations

import datetime

from magnum_common.db import api as db_api
from magnum_common.db.services import magnum_services
from tests.unit.magnum_api.controllers.support import who


def test_services_with_their_state(api):
    up = magnum_services.heartbeat("host-a", "magnum-conductor")
    down = magnum_services.heartbeat("host-b", "magnum-conductor")
    old = db_api.now() - datetime.timedelta(hours=2)
    with db_api.writer() as session:
        session.execute(magnum_services.model.__table__.update().where(
            magnum_services.model.id == down.id).values(last_seen_up=old))
    body = api.get("/v1/mservices", headers=who("admin")).json
    assert [(s["host"], s["state"]) for s in body["mservices"]] == [("host-a", "up"),
                                                                   ("host-b", "down")]
    assert body["mservices"][0]["id"] == up.id
    assert api.get("/v1/mservices", headers=who("member"), expect_errors=True).status_int \
        == 403
