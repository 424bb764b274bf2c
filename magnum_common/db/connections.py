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

Reading results is PyMySQL's other cost: a pure-Python loop of several method calls per
column of every row, and a regular expression per DATETIME value. A list of 1,000 templates
(36 columns) spent more time there than in everything else of the request. The connection
below reads buffered result rows in one loop over the packet bytes and parses DATETIMEs with
``datetime.fromisoformat`` (C), giving exactly PyMySQL's values (tested against it).
"""

from __future__ import annotations

import datetime
import functools
import select
import time
from collections.abc import Callable
from typing import Any

import pymysql.connections
import sqlalchemy as sa
from pymysql import converters
from pymysql.constants import FIELD_TYPE

#: Seconds a connection may have been idle in the pool and still go out unpinged.
PING_AFTER_IDLE = 30.0

_RETURNED_AT = "magnum_returned_at"


def _datetime(value: str) -> datetime.datetime | str | None:
    """A DATETIME / TIMESTAMP as the server sends it (``2026-12-01 09:20:58[.123456]``)."""
    try:
        return datetime.datetime.fromisoformat(value)
    except ValueError:  # zero dates and other oddities: PyMySQL's own answer
        return converters.convert_datetime(value)


class _Result(pymysql.connections.MySQLResult):
    """PyMySQL's result, reading the rows of a buffered result in one tight loop."""

    def _read_rowdata_packet(self) -> None:
        read_packet = self.connection._read_packet
        columns = self.converters
        rows = []
        while True:
            packet = read_packet()
            data = packet._data  # PyMySQL has no public accessor
            if data[0] == 0xFE and len(data) < 9:  # the EOF packet ends the rows
                self._check_packet_is_eof(packet)
                self.connection = None
                break
            rows.append(_row(data, columns))
        self.affected_rows = len(rows)
        self.rows = tuple(rows)


#: Bytes of the length that follow a length-encoded string's first byte 252, 253, 254.
_LENGTH_WIDTH = {252: 2, 253: 3, 254: 8}


def _row(data: bytes, columns: list[tuple[str | None, Callable | None]]) -> tuple:
    """One text-protocol row: a length-encoded string (or NULL) per column."""
    row: list[Any] = []
    append = row.append
    pos, end = 0, len(data)
    for encoding, convert in columns:
        if pos >= end:
            break
        length = data[pos]
        pos += 1
        if length >= 251:
            if length == 251:  # NULL
                append(None)
                continue
            width = _LENGTH_WIDTH[length]
            length = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        value: Any = data[pos:pos + length]
        pos += length
        if encoding is not None:
            value = value.decode(encoding)
        if convert is not None:
            value = convert(value)
        append(value)
    return tuple(row)


class PyMySQLConnection(pymysql.connections.Connection):
    """PyMySQL's connection, minus the ROLLBACK when no transaction can be open, with the
    faster result reading above."""

    _in_transaction = True  # until a COMMIT or ROLLBACK says otherwise

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.decoders[FIELD_TYPE.DATETIME] = _datetime
        self.decoders[FIELD_TYPE.TIMESTAMP] = _datetime

    def _read_query_result(self, unbuffered: bool = False) -> int:
        if unbuffered:
            return super()._read_query_result(unbuffered)
        self._result = None
        result = _Result(self)
        result.read()
        self._result = result
        if result.server_status is not None:
            self.server_status = result.server_status
        return result.affected_rows

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
