"""The database server's clock, for everything several hosts compare: leases, heartbeats.

A lease's expiry written from each conductor host's own clock lets a host whose clock runs
ahead take leases that are still live (40 s ahead, with 60 s leases renewed every 20 s).
``db_now(offset)`` is the server's current UTC time plus ``offset`` seconds as a SQL
expression, so the expiry is computed and compared by the database inside the UPDATE
itself, with one clock for every conductor. It renders for each backend as the naive UTC
value the ``DateTime`` columns store:

* SQLite: ``strftime('%Y-%m-%d %H:%M:%f000', 'now', '+N seconds')`` (the text format
  SQLAlchemy writes, microseconds included, so values compare as text);
* MariaDB / MySQL: ``UTC_TIMESTAMP(6) + INTERVAL N SECOND``;
* PostgreSQL: ``(statement_timestamp() AT TIME ZONE 'UTC') + N * INTERVAL '1 second'``.
"""

from __future__ import annotations

import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import FunctionElement


class db_now(FunctionElement):
    """The database server's UTC time plus ``offset`` whole seconds."""

    type = sa.DateTime()
    inherit_cache = False
    name = "db_now"

    def __init__(self, offset: int | float = 0) -> None:
        self.offset = int(offset)
        super().__init__()


@compiles(db_now)
def _default(element: db_now, compiler: Any, **kw: Any) -> str:
    raise NotImplementedError(f"db_now is not defined for {compiler.dialect.name}")


@compiles(db_now, "sqlite")
def _sqlite(element: db_now, compiler: Any, **kw: Any) -> str:
    return f"strftime('%Y-%m-%d %H:%M:%f000', 'now', '{element.offset:+d} seconds')"


@compiles(db_now, "mysql")
def _mysql(element: db_now, compiler: Any, **kw: Any) -> str:
    return f"(UTC_TIMESTAMP(6) + INTERVAL {element.offset:d} SECOND)"


@compiles(db_now, "postgresql")
def _postgresql(element: db_now, compiler: Any, **kw: Any) -> str:
    return (f"((statement_timestamp() AT TIME ZONE 'UTC') + "
            f"{element.offset:d} * INTERVAL '1 second')")


def server_now(session: Any) -> datetime.datetime:
    """The database server's current UTC time, read on ``session``."""
    value = session.execute(sa.select(db_now())).scalar_one()
    if isinstance(value, str):  # SQLite returns the text as is
        value = datetime.datetime.fromisoformat(value)
    return value.replace(tzinfo=None)
