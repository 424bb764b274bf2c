"""One SQLite file shared by magnum-api and several conductors, each with threads.

SQLite is the embedded default database, so concurrent use must not fail with ``database is
locked``. On a file database (``sqlite://`` in memory is one connection: left alone):

* WAL journal mode: readers and the one writer no longer block each other (in rollback-journal
  mode a reader's lock keeps a committing writer waiting, and the writer's keeps readers out);
* a busy timeout (``[database] sqlite_busy_timeout``): a writer waits for the one before it;
* write transactions begin ``BEGIN IMMEDIATE``: they take the write lock before their first
  read. A deferred transaction that read first and then writes cannot wait for the lock:
  SQLite fails it at once (``SQLITE_BUSY`` to break a lock-upgrade deadlock, or, in WAL mode,
  because another transaction wrote after its snapshot), whatever the busy timeout. Read
  transactions stay deferred (``BEGIN``) and run alongside the writer.

pysqlite's own transaction handling is off (oslo.db sets ``isolation_level = None``) and the
BEGIN comes from a ``begin`` event, SQLAlchemy's recipe for SQLite. oslo.db's hook only ever
emits a plain ``BEGIN``; it is replaced by one that emits ``BEGIN IMMEDIATE`` on a connection
carrying :data:`WRITE_TRANSACTION` in its execution options (``api.writer()`` gives its
connection those) and ``BEGIN`` on any other.
"""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from magnum_common.config import CONF

_BEGIN = "magnum_sqlite_begin"

#: Execution options of a write transaction's connection: it begins ``BEGIN IMMEDIATE``.
WRITE_TRANSACTION: dict[str, str] = {_BEGIN: "BEGIN IMMEDIATE"}

_OSLO_ENGINES = "oslo_db.sqlalchemy.engines"  # where oslo.db's plain-BEGIN hook is defined


def _is_file_database(url: sa.engine.URL) -> bool:
    return url.database not in (None, "", ":memory:") and url.query.get("mode") != "memory"


def _set_busy_timeout(seconds: float, dialect: Any, record: Any, cargs: tuple,
                      cparams: dict) -> None:
    """``do_connect``: pysqlite's ``timeout`` is SQLite's busy timeout (default 5 s)."""
    cparams.setdefault("timeout", seconds)


def _use_wal(dbapi_connection: Any, record: Any) -> None:
    """``connect``: WAL persists in the file; setting it again is a no-op, and a file
    created or replaced since (``magnum-db-manage``, a restore) is switched too."""
    dbapi_connection.execute("PRAGMA journal_mode = WAL").fetchall()


def _begin(connection: sa.engine.Connection) -> None:
    """``begin``: a write transaction takes the write lock now, a read one when it reads."""
    if not connection.connection.dbapi_connection.in_transaction:
        connection.exec_driver_sql(connection.get_execution_options().get(_BEGIN, "BEGIN"))


def _replace_begin_hook(engine: sa.engine.Engine) -> None:
    """Ours instead of oslo.db's, not beside it: both would emit a BEGIN, and ours cannot be
    made to run first (SQLAlchemy ignores ``insert=True`` for connection events)."""
    for listener in list(engine.dispatch.begin):
        if getattr(listener, "__module__", None) == _OSLO_ENGINES:
            sa.event.remove(engine, "begin", listener)
    sa.event.listen(engine, "begin", _begin)


def tune(engine: sa.engine.Engine) -> None:
    """Install the above on a SQLite file engine oslo.db just created (enginefacade's
    ``on_engine_create`` hook); other engines are left alone."""
    if engine.dialect.driver != "pysqlite" or not _is_file_database(engine.url):
        return
    sa.event.listen(engine, "do_connect",
                    functools.partial(_set_busy_timeout, CONF.database.sqlite_busy_timeout))
    sa.event.listen(engine, "connect", _use_wal)
    _replace_begin_hook(engine)
