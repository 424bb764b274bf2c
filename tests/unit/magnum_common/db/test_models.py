"""The mapped rows: timestamps in naive UTC, ``as_dict`` by column name, a readable repr."""

from __future__ import annotations

import datetime

from magnum_common.db import api as db_api
from magnum_common.db import models


def test_created_and_updated_timestamps(db):
    with db_api.writer() as session:
        session.add(models.ClusterTemplate(uuid="t-1", name="t", project_id="p"))
    with db_api.writer() as session:
        row = session.query(models.ClusterTemplate).filter_by(uuid="t-1").one()
        assert row.created_at is not None and row.updated_at is None
        assert row.created_at.tzinfo is None
        assert abs((models.utcnow() - row.created_at).total_seconds()) < 5
        row.name = "renamed"
    with db_api.reader() as session:
        row = session.query(models.ClusterTemplate).filter_by(uuid="t-1").one()
        assert row.updated_at is not None and row.updated_at >= row.created_at


def test_as_dict_has_every_column_and_repr_names_the_row(db):
    with db_api.writer() as session:
        session.add(models.Quota(project_id="p", resource="Cluster", hard_limit=3))
        session.add(models.Cluster(uuid="c-1", project_id="p", labels={"a": "b"}))
    with db_api.reader() as session:
        quota = session.query(models.Quota).one()
        cluster = session.query(models.Cluster).one()
        as_dict = cluster.as_dict()
    assert set(as_dict) == {c.name for c in models.Cluster.__table__.columns}
    assert as_dict["labels"] == {"a": "b"} and as_dict["uuid"] == "c-1"
    assert repr(cluster) == "<Cluster c-1>" and repr(quota) == f"<Quota {quota.id}>"
    assert isinstance(as_dict["created_at"], datetime.datetime)
