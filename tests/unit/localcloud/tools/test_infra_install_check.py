"""The install check's own machinery, outside the throwaway root it normally runs in
(localcloud/tools/verify-infra-install runs it there, by hand): a step prints its outcome and
ends the run at the first failure with the servers' log tails; a port must close in time; and
its PyMySQL check passes against this machine's MariaDB on a database and user of its own
(created with the same localcloud.infra calls, dropped after)."""

from __future__ import annotations

import os
import socket

import pytest

from localcloud import infra
from localcloud.tools import infra_install_check as check


def test_a_step_prints_its_outcome_and_a_failure_ends_the_run(capsys):
    check.step("something that works", lambda: None)
    assert capsys.readouterr().out.startswith("[check] something that works ...\n[check] ok   "
                                              "something that works")
    with pytest.raises(SystemExit) as ended:
        check.step("a check that fails", lambda: check.expect(False, "the row is missing"))
    assert ended.value.code == 1
    out = capsys.readouterr().out
    assert "[check] FAIL a check that fails" in out
    assert "AssertionError: the row is missing" in out
    with pytest.raises(AssertionError, match="apt_install"):
        check.no_apt("mariadb-server")


def test_the_tail_of_a_log(tmp_path, capsys):
    log = tmp_path / "server.log"
    log.write_text("".join(f"line {i}\n" for i in range(100)))
    check._tail(str(log), lines=3)
    assert capsys.readouterr().out == f"---- last lines of {log}\nline 97\nline 98\nline 99\n"
    check._tail(str(tmp_path / "absent.log"))
    assert capsys.readouterr().out == ""


def test_a_port_must_close_in_time():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with pytest.raises(AssertionError, match=f"port {port} still open"):
            check._wait_closed(port, timeout=0)
    check._wait_closed(port, timeout=5)  # closed now: returns at once


@pytest.fixture
def own_database(monkeypatch):
    name = f"lcverify_{os.environ.get('PYTEST_XDIST_WORKER', 'gw0')}_{os.getpid()}"
    monkeypatch.setattr(check, "DB", name)
    yield name
    infra.drop_database(name)
    for host in ("%", "localhost"):
        infra.mysql(f"DROP USER IF EXISTS '{name}'@'{host}';")


def test_the_pymysql_check_passes_on_a_database_of_its_own(own_database):
    assert infra.ensure_database(own_database, own_database, check.PASSWORD) is True
    check.pymysql_as_service_user()  # a table and a non-ASCII row through the service user
    assert infra.table_count(own_database) == 1
