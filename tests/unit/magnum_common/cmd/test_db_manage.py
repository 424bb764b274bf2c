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


def test_key_rotation_as_documented(db, tmp_path):
    """doc/source/security.rst, "Rotating the [crypto] key": new key first with the old one
    listed, ``magnum-db-manage reencrypt``, then the old key removed; every secret (trustee
    password, recorded sealed token, x509keypair private key) still opens."""
    from oslo_config import cfg

    from magnum_common import crypto
    from magnum_common.context import RequestContext
    from magnum_common.db import api as db_api
    from magnum_common.db import models

    old, new = crypto.generate_key(), crypto.generate_key()
    cfg.CONF.set_override("encryption_key", old, "crypto")
    requester = RequestContext(user_id="u", project_id="p", auth_token="tok-1")
    with db_api.writer() as session:
        session.add(models.Cluster(uuid="c-1", project_id="p",
                                   trustee_password=crypto.encrypt("pw-1"),
                                   operation="cluster_update",
                                   operation_args={"node_count": 2, **requester.record()}))
        session.add(models.X509KeyPair(uuid="k-1", project_id="p", certificate="CERT",
                                       private_key=crypto.encrypt("KEY-1")))

    def configured(*keys: str):
        path = tmp_path / "magnum.conf"
        path.write_text(f"[database]\nconnection = {db}\n[crypto]\nencryption_key = {keys[0]}\n"
                        f"previous_encryption_keys = {','.join(keys[1:])}\n")
        return path

    done = _run(configured(new, old), "reencrypt")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3 secrets re-encrypted with the current [crypto] key"
    cfg.CONF.set_override("encryption_key", new, "crypto")  # the old key is gone
    with db_api.reader() as session:
        cluster = session.query(models.Cluster).filter_by(uuid="c-1").one()
        pair = session.query(models.X509KeyPair).filter_by(uuid="k-1").one()
        assert crypto.decrypt(cluster.trustee_password) == "pw-1"
        assert RequestContext.from_record(cluster.operation_args).auth_token == "tok-1"
        assert cluster.operation_args["node_count"] == 2
        assert (crypto.decrypt(pair.private_key), pair.certificate) == ("KEY-1", "CERT")
