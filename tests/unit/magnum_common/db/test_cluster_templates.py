"""The template repository: a project sees its own and the public templates; hidden ones
only by their id."""

from __future__ import annotations

import pytest

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_common.db.cluster_templates import cluster_templates
from tests.unit.magnum_common.db.support import ALICE, BOB


def test_templates_visibility_public_and_hidden(db_any):
    mine = cluster_templates.create(ALICE, {"name": "mine", "project_id": "p1",
                                            "user_id": "alice"})
    shared = cluster_templates.create(BOB, {"name": "shared", "project_id": "p2",
                                            "user_id": "bob", "public": True})
    hidden = cluster_templates.create(BOB, {"name": "hid", "project_id": "p2",
                                            "user_id": "bob", "public": True, "hidden": True})
    assert {t.name for t in cluster_templates.list(ALICE)} == {"mine", "shared"}
    admin = RequestContext(user_id="root", project_id="p9", is_admin=True)
    assert {t.name for t in cluster_templates.list(admin)} == {"shared", "hid"}
    assert cluster_templates.get(ALICE, hidden.uuid).name == "hid"
    with pytest.raises(exception.ClusterTemplateNotFound):
        cluster_templates.get(BOB, mine.uuid)
    assert shared.uuid
