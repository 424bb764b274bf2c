"""Pooled connections without a ping or a needless ROLLBACK per transaction, still never
handed out dead; MariaDB connections in utf8mb4.

oslo.db's engine pings the server at every pool checkout (``pool_pre_ping``, hard-coded),
and SQLAlchemy's pool rolls back every connection given back to it, even right after its
transaction was committed or rolled back; PyMySQL sends that ROLLBACK to the server
(psycopg2 and sqlite3 skip it when no transaction is open). A one-statement transaction
thus took four round trips on MariaDB: ping, statement, COMMIT or ROLLBACK, ROLLBACK.
Here it takes two (on PostgreSQL, psycopg2's BEGIN makes it three):

* a PyMySQL connection knows whether a transaction may be open (any statement may open one;
  a COMMIT or ROLLBACK that succeeded closes it) and skips ROLLBACK when none is: what
  psycopg2 does natively, and MySQL Connector/J's ``useLocalTransactionState``;
* a connection back in the pool for less than :data:`PING_AFTER_IDLE` seconds is checked
  without a round trip instead of pinged. A server that closed it (restart, ``KILL``,
  ``pg_terminate_backend``, ``wait_timeout``) left its socket readable (end of file, or a
  last error message): it is then replaced before use, as a failed ping would have been.
  A connection idle for longer is pinged as before: a peer that went away without closing
  (host lost, network state dropped) shows only to a round trip, and that is what long
  idleness risks. A peer lost that way within the window fails one transaction, and the
  disconnect then recycles the whole pool (SQLAlchemy's disconnect handling).
"""

from __future__ import annotations

import functools
import select
import time
from collections.abc import Callable
from typing import Any

import pymysql.connections
import sqlalchemy as sa

#: Seconds a connection may have been idle in the pool and still go out unpinged.
PING_AFTER_IDLE = 30.0

_RETURNED_AT = "magnum_returned_at"


class PyMySQLConnection(pymysql.connections.Connection):
    """PyMySQL's connection, minus the ROLLBACK when no transaction can be open."""

    _in_transaction = True  # until a COMMIT or ROLLBACK says otherwise

    def query(self, sql: Any, unbuffered: bool = False) -> int:
        """Every statement goes through here (cursors, SQLAlchemy) and may open one."""
        self._in_transaction = True
        return super().query(sql, unbuffered)

    def begin(self) -> None:
        self._in_transaction = True
        super().begin()

    def commit(self) -> None:
        super().commit()
        self._in_transaction = False

    def rollback(self) -> None:
        if self._in_transaction:
            super().rollback()
            self._in_transaction = False


def _pymysql_socket(dbapi_connection: Any) -> int | None:
    sock = getattr(dbapi_connection, "_sock", None)  # PyMySQL has no public accessor
    return sock.fileno() if sock is not None else None


def _psycopg2_socket(dbapi_connection: Any) -> int | None:
    return None if dbapi_connection.closed else dbapi_connection.fileno()


_SOCKET_OF: dict[str, Callable[[Any], int | None]] = {
    "pymysql": _pymysql_socket, "psycopg2": _psycopg2_socket}


def _readable(fd: int) -> bool:
    """True when the server closed its end or sent something unasked (a last error)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


#: MySQL's "utf8" is three bytes per character at most: no emoji, no supplementary plane.
_THREE_BYTE_CHARSETS = (None, "", "utf8", "utf8mb3")


def _connect_pymysql(dialect: Any, record: Any, cargs: tuple, cparams: dict) -> Any:
    """oslo.db (and devstack's ``?charset=utf8``) ask for MySQL's 3-byte utf8; the tables
    are utf8mb4, so the connection is too, or 4-byte characters fail to be stored."""
    if str(cparams.get("charset", "")).lower() in _THREE_BYTE_CHARSETS:
        cparams["charset"] = "utf8mb4"
    return PyMySQLConnection(*cargs, **cparams)


def _returned(dbapi_connection: Any, record: Any) -> None:
    record.info[_RETURNED_AT] = time.monotonic()


def _check(dialect: Any, socket_of: Callable[[Any], int | None], dbapi_connection: Any,
           record: Any, proxy: Any) -> None:
    """At checkout: a pooled connection the server closed is replaced (SQLAlchemy reconnects
    on DisconnectionError); one idle for long is pinged."""
    returned_at = record.info.pop(_RETURNED_AT, None)
    if returned_at is None:
        return  # connected for this checkout
    fd = socket_of(dbapi_connection)
    if fd is not None and fd >= 0 and time.monotonic() - returned_at < PING_AFTER_IDLE:
        if _readable(fd):
            raise sa.exc.DisconnectionError("connection closed by the server while pooled")
        return
    try:
        dialect.do_ping(dbapi_connection)
    except dialect.loaded_dbapi.Error as exc:
        # as SQLAlchemy's own pre-ping: the server likely dropped every pooled connection
        raise sa.exc.InvalidatePoolError(f"ping failed: {exc}") from exc


def tune(engine: sa.engine.Engine) -> None:
    """Install the above on an engine oslo.db just created (enginefacade's
    ``on_engine_create`` hook); SQLite (no server, a new connection per checkout) is left
    alone."""
    driver = engine.dialect.driver
    if driver not in _SOCKET_OF:
        return
    if driver == "pymysql":
        sa.event.listen(engine, "do_connect", _connect_pymysql)
    engine.pool._pre_ping = False  # oslo.db always sets pool_pre_ping; _check replaces it
    sa.event.listen(engine, "checkin", _returned)
    sa.event.listen(engine, "checkout",
                    functools.partial(_check, engine.dialect, _SOCKET_OF[driver]))
    engine.dispose()  # the connection oslo.db opened to test the URL predates the hooks
