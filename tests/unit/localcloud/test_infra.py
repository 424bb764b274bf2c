"""The machine's MariaDB as the local cloud uses it: a database with its own user, counted
and dropped; the URLs the services get are on 127.0.0.1."""

from __future__ import annotations

import os
import socket

import pymysql

from localcloud import infra


def test_a_database_and_its_user(tmp_path):
    name = f"lc_unit_{os.getpid()}"
    user = f"lcu{os.getpid()}"
    try:
        assert infra.ensure_database(name, user, "pw-1")
        assert not infra.ensure_database(name, user, "pw-2")  # exists: the password moves
        connection = pymysql.connect(host="127.0.0.1", user=user, password="pw-2",
                                     database=name)
        with connection, connection.cursor() as cursor:
            cursor.execute("CREATE TABLE t (id INT)")
        assert infra.table_count(name) == 1
    finally:
        infra.drop_database(name)
        infra.mysql(f"DROP USER IF EXISTS '{user}'@'%'; DROP USER IF EXISTS "
                    f"'{user}'@'localhost';")
    assert infra.table_count(name) == 0
    assert infra.db_url(name, user, "p") == (
        f"mysql+pymysql://{user}:p@127.0.0.1:3306/{name}?charset=utf8mb4")
    assert infra.rabbit_url("v").startswith("rabbit://guest:guest@127.0.0.1:5672/")


def test_port_open_on_loopback():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        assert infra.port_open(port)
    assert not infra.port_open(port)
