"""Our services of one main-job run, short of starting them (the lives start them against
the cloud): the encryption key made once and kept private, one holder of the catalog's port,
a kept run found while it lives and stopped, each backend's database URL, the magnum.conf
and per-conductor files a run writes, which conductors report, and the error lines of the
logs."""

from __future__ import annotations

import configparser
import json
import os
import stat
import subprocess

import pytest
import sqlalchemy as sa
from cryptography.fernet import Fernet

from localcloud.scenario import paths, services


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))
    return paths.magnum_home()


def test_the_encryption_key_is_made_once_and_kept_private(home):
    key = services.encryption_key()
    Fernet(key.encode())  # a usable key
    assert services.encryption_key() == key
    assert stat.S_IMODE(os.stat(home / "encryption_key").st_mode) == 0o600


def test_one_holder_of_the_catalogs_port_at_a_time(home):
    first, second = services.PortLock(), services.PortLock(timeout=0)
    first.acquire()
    try:
        with pytest.raises(services.ServiceError, match="stayed locked"):
            second.acquire()
        assert (home / f"api-{paths.API_PORT}.lock").read_text() == f"{os.getpid()}\n"
    finally:
        first.release()
    second.acquire()
    second.release()


def test_a_kept_run_is_found_while_it_lives_and_stopped(home):
    assert services.kept_run() is None
    services.kept_file().write_text(json.dumps({"processes": [{"pid": 2 ** 22 + 1}]}))
    assert services.kept_run() is None and not services.kept_file().exists()  # all dead
    sleeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        services.kept_file().write_text(json.dumps({"run_dir": "r", "processes": [
            {"name": "magnum-api", "pid": sleeper.pid}]}))
        assert services.kept_run()["run_dir"] == "r"
        assert services.stop_kept()["run_dir"] == "r"
        assert sleeper.wait(timeout=30) is not None and not services.kept_file().exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_each_backend_has_its_database_url_and_an_unknown_one_is_refused(home, tmp_path):
    run = services.MagnumServices(run_dir=tmp_path / "run", name="e2e-one", tier="lite")
    assert run.database_url() == f"sqlite:///{tmp_path / 'run' / 'magnum.sqlite'}"
    mysql = services.MagnumServices(run_dir=tmp_path / "m", backend="mysql", name="e2e-one")
    assert mysql.database_url().endswith("/magnum_e2e_one?charset=utf8mb4")
    pg = services.MagnumServices(run_dir=tmp_path / "p", backend="postgresql", name="e2e-one")
    assert pg.database_url() == f"{services.SERVERS['postgresql']}/magnum_e2e_one"
    with pytest.raises(services.ServiceError, match="unknown database backend 'oracle'"):
        services.MagnumServices(run_dir=tmp_path / "o", backend="oracle")


def test_a_run_writes_its_configuration_files(home, tmp_path):
    run = services.MagnumServices(run_dir=tmp_path / "run", name="e2e_one", tier="lite",
                                  overrides={"trust": {"cluster_user_trust": "false"}})
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(run.write_config())
    assert ini["database"]["connection"] == run.database_url()
    assert ini["conductor"]["topic"] == "magnum-conductor-e2e_one"  # no vhost of its own
    assert ini["api"]["validate_flavors"] == "false"  # lite: no Nova to ask
    assert ini["api"]["host"] == paths.API_HOST and ini["DEFAULT"]["host"] == "e2e-one-api"
    assert ini["crypto"]["encryption_key"] == services.encryption_key()
    conductor = configparser.ConfigParser()
    conductor.read(run.run_dir / "conductor-2.conf")
    assert conductor["DEFAULT"]["host"] == "e2e-one-conductor-2"
    overrides = configparser.ConfigParser()
    overrides.read(run.run_dir / "overrides.conf")
    assert overrides["trust"]["cluster_user_trust"] == "false"
    files = run.config_files(2)
    assert files[1::2] == [str(run.config), str(paths.magnum_fragment()),
                           str(run.run_dir / "conductor-2.conf"),
                           str(run.run_dir / "overrides.conf")]
    assert set(files[::2]) == {"--config-file"}
    run.vhost = "magnum_e2e_one"
    ini.read(run.write_config())
    assert ini["conductor"]["topic"] == "magnum-conductor"  # its vhost is its own


def test_which_conductors_report_and_the_error_lines_of_the_logs(home, tmp_path):
    run = services.MagnumServices(run_dir=tmp_path / "run", name="e2e", tier="lite")
    assert run.conductors_reporting() == []  # no schema yet
    (run.run_dir / "magnum.sqlite-wal").write_text("old")
    engine = sa.create_engine(run.fresh_database())
    assert not (run.run_dir / "magnum.sqlite-wal").exists()
    with engine.begin() as conn:
        conn.execute(sa.text('CREATE TABLE magnum_service (host TEXT, "binary" TEXT, '
                             "report_count INTEGER)"))
        conn.execute(sa.text("INSERT INTO magnum_service VALUES ('e2e-conductor-1', "
                             "'magnum-conductor', 3), ('e2e-conductor-2', 'magnum-conductor', "
                             "0), ('other-conductor-1', 'magnum-conductor', 9)"))
    engine.dispose()
    assert run.conductors_reporting() == ["e2e-conductor-1"]
    (run.logs / "magnum-api.log").write_text(
        "2026-12-01 INFO started\n2026-12-01 12 ERROR magnum_api boom\nTraceback (most recent"
        " call last):\n")
    (run.logs / "pip.log").write_text("x ERROR y\n")
    assert run.errors_in_logs() == ["magnum-api.log: 2026-12-01 12 ERROR magnum_api boom",
                                    "magnum-api.log: Traceback (most recent call last):"]
    first, second = services.new_run_dir("mainjob"), services.new_run_dir("mainjob")
    assert first != second and first.parent == home / "runs" and first.is_dir()
