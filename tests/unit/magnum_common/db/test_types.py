"""JSON columns: None stored as the empty container (or NULL for the nullable dict), the
declared type enforced, values read back equal on every backend."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from magnum_common.db import api as db_api
from magnum_common.db import models, types


def test_json_round_trips_and_none_is_the_empty_container(db_any):
    labels = {"kube_tag": "v1.30", "nested": {"a": [1, 2]}, "emoji": "\U0001f600"}
    with db_api.writer() as session:
        session.add(models.Cluster(uuid="c-1", project_id="p", labels=labels,
                                   health_status_reason=None))
        session.add(models.Cluster(uuid="c-2", project_id="p", labels=None,
                                   health_status_reason={"api": "ok"}))
    with db_api.reader() as session:
        rows = {r.uuid: r for r in session.scalars(sa.select(models.Cluster))}
        raw = dict(session.execute(sa.text(
            "SELECT uuid, health_status_reason FROM cluster")).all())
    assert rows["c-1"].labels == labels and rows["c-2"].labels == {}
    assert rows["c-1"].health_status_reason is None and raw["c-1"] is None
    assert rows["c-2"].health_status_reason == {"api": "ok"}


def test_the_declared_type_is_enforced():
    with pytest.raises(TypeError, match="JSONEncodedDict supports only dict values, got list"):
        types.JSONEncodedDict().process_bind_param([1], None)
    assert types.JSONEncodedList().process_bind_param(None, None) == "[]"
    assert types.JSONEncodedList().process_result_value("", None) == []
    assert types.NullableJSONEncodedDict().process_bind_param(None, None) is None
