"""magnum-db-manage as an operator runs it: real subprocesses, real databases."""

from __future__ import annotations

import subprocess
import sys

import pytest

from magnum_common.db import migration


def _run(conf_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "magnum_common.cmd.db_manage", "--config-file", str(conf_path),
         *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def conf(tmp_path):
    def make(url: str):
        path = tmp_path / "magnum.conf"
        path.write_text(f"[database]\nconnection = {url}\n")
        return path
    return make


def test_upgrade_version_and_stamp_on_a_fresh_sqlite(conf, tmp_path):
    path = conf(f"sqlite:///{tmp_path / 'fresh.sqlite'}")
    assert _run(path, "version").stdout.strip() == "None"
    assert _run(path, "upgrade").returncode == 0
    assert _run(path, "version").stdout.strip() == migration.head()
    assert _run(path, "stamp", "base").returncode == 0
    assert _run(path, "version").stdout.strip() == "None"


def test_unknown_revision_is_a_one_line_error(conf, tmp_path):
    result = _run(conf(f"sqlite:///{tmp_path / 'x.sqlite'}"), "upgrade", "nope")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "magnum-db-manage: error: unknown revision 'nope'"]


def test_unreachable_database_is_a_one_line_error(conf):
    result = _run(conf("mysql+pymysql://root@127.0.0.1:1/none"), "upgrade")
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the database" in lines[0]
    assert "Traceback" not in result.stderr


def test_bad_option_value_is_oslo_config_error(tmp_path):
    path = tmp_path / "bad.conf"
    path.write_text("[database]\nmax_retries = many\n")
    result = _run(path, "version")
    assert result.returncode == 1
    assert "max_retries" in result.stderr and "Traceback" not in result.stderr
