"""The database server's clock as SQL, on every backend: ``db_now(offset)`` compares with
the naive UTC values the DateTime columns store."""

from __future__ import annotations

import datetime

import pytest
import sqlalchemy as sa

from magnum_common.db import api as db_api
from magnum_common.db import clock, models


def _utc() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


def test_server_now_is_naive_utc(db_any):
    with db_api.reader() as session:
        now = clock.server_now(session)
    assert now.tzinfo is None
    assert abs((now - _utc()).total_seconds()) < 5


def test_an_offset_moves_the_time_and_compares_with_stored_columns(db_any):
    stored = _utc()
    with db_api.writer() as session:
        session.add(models.Cluster(uuid="c-1", project_id="p", lock_expires_at=stored))
    with db_api.reader() as session:
        ahead = session.execute(sa.select(clock.db_now(3600))).scalar_one()
        live = session.execute(sa.select(models.Cluster.uuid).where(
            models.Cluster.lock_expires_at > clock.db_now(-60))).scalars().all()
        expired = session.execute(sa.select(models.Cluster.uuid).where(
            models.Cluster.lock_expires_at > clock.db_now(60))).scalars().all()
    if isinstance(ahead, str):
        ahead = datetime.datetime.fromisoformat(ahead)
    assert 3590 < (ahead.replace(tzinfo=None) - stored).total_seconds() < 3610
    assert (live, expired) == (["c-1"], [])


def test_an_unknown_dialect_is_refused():
    from sqlalchemy.dialects import mssql

    with pytest.raises(NotImplementedError, match="mssql"):
        sa.select(clock.db_now()).compile(dialect=mssql.dialect())
