"""Pooled connections on MariaDB and PostgreSQL (magnum_common.db.connections): a transaction
costs its statements and one COMMIT or ROLLBACK, never a ping or a second ROLLBACK; a
connection the server closed while pooled is replaced before use; a long-idle one is
pinged; no transaction outlives its checkout."""

from __future__ import annotations

import time

import pymysql.connections
import pytest
import sqlalchemy as sa

from magnum_common.db import api, connections, models
from magnum_common.db.clusters import clusters

SERVERS = pytest.mark.parametrize("db_any", ["mysql", "postgresql"], indirect=True)
BACKEND_ID = {"mysql": "SELECT CONNECTION_ID()", "postgresql": "SELECT pg_backend_pid()"}


@pytest.fixture
def wire(monkeypatch):
    """What PyMySQL sends: one entry per round trip (a statement or a ping)."""
    sent: list[str] = []
    execute = pymysql.connections.Connection._execute_command

    def record(self, command, sql):
        sent.append("PING" if command == pymysql.constants.COMMAND.COM_PING
                    else (sql.decode() if isinstance(sql, bytes) else sql).split()[0].upper())
        return execute(self, command, sql)

    monkeypatch.setattr(pymysql.connections.Connection, "_execute_command", record)
    return sent


@pytest.fixture
def pings(monkeypatch):
    """Pings of the engine's dialect."""
    engine = api.get_engine()
    done: list[object] = []
    ping = engine.dialect.do_ping

    def record(dbapi_connection):
        done.append(dbapi_connection)
        return ping(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", record)
    return done


def _backend_id() -> int:
    engine = api.get_engine()
    with engine.connect() as conn:
        return conn.execute(sa.text(BACKEND_ID[engine.dialect.name])).scalar_one()


def _kill(backend_id: int) -> None:
    """End one server-side connection, as a server restart or an operator would."""
    url = api.get_engine().url
    other = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with other.connect() as conn:
            if url.get_backend_name() == "mysql":
                conn.execute(sa.text(f"KILL {int(backend_id)}"))
            else:
                conn.execute(sa.text("SELECT pg_terminate_backend(:pid)"), {"pid": backend_id})
    finally:
        other.dispose()


def _pooled_socket() -> int:
    raw = api.get_engine().raw_connection()
    try:
        if hasattr(raw.dbapi_connection, "_sock"):
            return raw.dbapi_connection._sock.fileno()
        return raw.dbapi_connection.fileno()
    finally:
        raw.close()


def _wait_closed(fd: int) -> None:
    """Until the server's close reached our socket (it does within milliseconds)."""
    deadline = time.monotonic() + 10
    while not connections._readable(fd):
        assert time.monotonic() < deadline, "the server never closed the connection"
        time.sleep(0.01)


@pytest.mark.parametrize("db_any", ["mysql"], indirect=True)
def test_a_transaction_is_its_statements_and_one_commit_or_rollback(db_any, wire):
    clusters.create(None, {"name": "c1", "project_id": "p1"})  # the pool holds a connection
    wire.clear()
    clusters.get(None, "c1")
    assert wire == ["SELECT", "ROLLBACK"]
    wire.clear()
    clusters.acquire_lock(clusters.get(None, "c1").uuid, "me", 60)
    assert wire == ["SELECT", "ROLLBACK", "UPDATE", "COMMIT"]
    wire.clear()
    with api.reading() as conn:
        clusters.rows(conn, None)
    assert wire == ["SELECT", "ROLLBACK"]


@SERVERS
def test_no_ping_for_a_connection_back_in_the_pool_lately(db_any, pings):
    first = _backend_id()
    for _ in range(3):
        clusters.list(None)
    assert _backend_id() == first
    assert pings == []


@SERVERS
def test_a_connection_closed_by_the_server_while_pooled_is_replaced_before_use(db_any, pings):
    cluster = clusters.create(None, {"name": "c1", "project_id": "p1"})
    victim = _backend_id()
    fd = _pooled_socket()
    _kill(victim)
    _wait_closed(fd)
    assert clusters.get(None, cluster.uuid).name == "c1"
    assert _backend_id() != victim
    assert pings == []


@SERVERS
def test_a_long_idle_connection_is_pinged_and_replaced_when_dead(db_any, pings, monkeypatch):
    monkeypatch.setattr(connections, "PING_AFTER_IDLE", 0.0)
    first = _backend_id()
    pings.clear()
    assert _backend_id() == first
    assert len(pings) == 1
    fd = _pooled_socket()
    _kill(first)
    _wait_closed(fd)
    pings.clear()
    assert clusters.list(None) == []
    assert len(pings) == 1
    assert _backend_id() != first


@SERVERS
def test_no_transaction_outlives_its_checkout(db_any):
    """A connection given back without COMMIT or ROLLBACK is rolled back by the pool (its
    snapshot and locks go); one given back right after COMMIT stays correct too."""
    clusters.create(None, {"name": "before", "project_id": "p1"})
    engine = api.get_engine()
    select = sa.select(models.Cluster.name)
    raw = engine.raw_connection()
    cursor = raw.cursor()
    cursor.execute(str(select.compile(engine)))  # opens a transaction (REPEATABLE READ)
    cursor.close()
    raw.close()
    other = sa.create_engine(engine.url)
    try:
        with other.begin() as conn:
            conn.execute(sa.update(models.Cluster).values(name="after"))
    finally:
        other.dispose()
    with engine.connect() as conn:
        assert conn.execute(select).scalar_one() == "after"
        conn.commit()
    clusters.create(None, {"name": "second", "project_id": "p1"})
    with engine.connect() as conn:
        assert sorted(conn.execute(select).scalars()) == ["after", "second"]


def test_rows_read_exactly_as_pymysql_reads_them():
    """The fast row reader and DATETIME parser give PyMySQL's own values: NULLs, empty and
    long strings (each length encoding: 1, 2, 3 bytes), binary, numbers, dates (with and
    without fractions, zero dates), several rows and several result sets."""
    host = dict(host="127.0.0.1", port=3306, user="root", charset="utf8mb4")
    long2, long3 = "é" * 300, "x" * 70000
    sql = ("SELECT NULL, '', 'a', %s, %s, _binary 0x00ff, 42, -7, 3.5, CAST(1.25 AS DECIMAL(5,2)),"
           " CAST('2026-12-01 09:20:58' AS DATETIME), CAST('2026-12-01 09:20:58.123456' AS "
           "DATETIME(6)), CAST('2026-12-01' AS DATE), CAST('12:30:00' AS TIME), "
           "TIMESTAMP('2026-01-02 03:04:05'), 'π ✓ 😀' UNION ALL SELECT 'b', NULL, NULL, 'c', "
           "'d', NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL")
    ours = connections.PyMySQLConnection(**host)
    stock = pymysql.connections.Connection(**host)
    try:
        for conn in (ours, stock):
            conn.query("SET SESSION sql_mode = ''")
        results = []
        for conn in (ours, stock):
            with conn.cursor() as cursor:
                cursor.execute(sql, (long2, long3))
                rows = cursor.fetchall()
                cursor.execute("SELECT CAST('0000-00-00 00:00:00' AS DATETIME), 1")
                rows += cursor.fetchall()
            results.append(rows)
        assert results[0] == results[1]
        assert results[0][0][3] == long2 and results[0][0][4] == long3
        assert results[0][0][11].microsecond == 123456
    finally:
        ours.close()
        stock.close()
