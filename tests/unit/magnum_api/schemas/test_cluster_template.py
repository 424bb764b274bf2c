"""Template views: from a row object and from row reads alike, valid per the document."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from magnum_api.schemas import cluster_template
from magnum_common.db import api as db_api
from magnum_common.db.cluster_templates import cluster_templates
from tests.unit.magnum_common.db.support import ALICE

BASE = "http://127.0.0.1:9511"


def test_the_row_view_and_the_row_read_views_agree(db):
    made = [cluster_templates.create(ALICE, {"name": f"t{i}", "project_id": "p1",
                                             "user_id": "alice", "coe": "kubernetes",
                                             "labels": {"k": str(i)} if i else None})
            for i in range(3)]
    one = [cluster_template.view(row.as_dict(), BASE) for row in made]
    with db_api.reading() as conn:
        rows = cluster_templates.rows(conn, ALICE, limit=None)
    many = cluster_template.views(rows, BASE)
    assert sorted(many, key=lambda b: b["name"]) == one
    assert one[0]["labels"] == {} and one[1]["labels"] == {"k": "1"}
    assert one[0]["links"][0]["href"] == f"{BASE}/v1/clustertemplates/{made[0].uuid}"
    validator = Draft202012Validator(cluster_template.VIEW.schema())
    assert all(validator.is_valid(body) for body in one)
    assert cluster_template.views([], BASE) == []
    assert cluster_template.patch_document(made[1])["name"] == "t1"
