"""The main-job harness itself, without the local cloud: config, processes, narration."""

from __future__ import annotations

import sys
import time

import pytest
from oslo_config import cfg

from localcloud.scenario import coe, narrate, procs, services


@pytest.fixture
def cloud_dir(tmp_path, monkeypatch):
    """A stand-in local-cloud state directory with the fragment main-job includes."""
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path / "lc"))
    (tmp_path / "lc").mkdir()
    (tmp_path / "lc" / "magnum-localcloud.conf").write_text(
        "[keystone_authtoken]\nauth_url = http://127.0.0.1:5000/v3\n")
    (tmp_path / "lc" / "tier").write_text("lite\n")
    return tmp_path / "lc"


def _load(files: list[str]) -> cfg.ConfigOpts:
    conf = cfg.ConfigOpts()
    conf.register_opts([cfg.StrOpt("transport_url"), cfg.HostAddressOpt("host")])
    conf.register_opts([cfg.StrOpt("connection")], group="database")
    conf.register_opts([cfg.BoolOpt(n) for n in ("validate_flavors", "validate_keypairs",
                                                 "validate_networks")]
                       + [cfg.PortOpt("port")], group="api")
    conf.register_opts([cfg.StrOpt("encryption_key")], group="crypto")
    conf.register_opts([cfg.IntOpt("workers"), cfg.StrOpt("topic")], group="conductor")
    conf.register_opts([cfg.StrOpt("auth_url")], group="keystone_authtoken")
    conf(files, project="magnum", default_config_files=[])
    return conf


@pytest.mark.parametrize("backend,prefix", [("sqlite", "sqlite:///"),
                                            ("mysql", "mysql+pymysql://"),
                                            ("postgresql", "postgresql+psycopg2://")])
def test_run_config_is_what_the_services_read(cloud_dir, tmp_path, backend, prefix):
    svc = services.MagnumServices(run_dir=tmp_path / "run", backend=backend, name="e2e_t1")
    svc.vhost = "magnum_e2e_t1"
    svc.write_config()
    conf = _load(svc.config_files(2))
    assert conf.transport_url == "rabbit://guest:guest@127.0.0.1:5672/magnum_e2e_t1"
    assert conf.database.connection.startswith(prefix)
    assert conf.api.port == 9511
    assert not (conf.api.validate_flavors or conf.api.validate_networks
                or conf.api.validate_keypairs)
    assert conf.host == "e2e-t1-conductor-2" and conf.conductor.workers == 1  # a valid host name
    if backend != "sqlite":
        assert conf.database.connection.split("/")[-1].startswith("magnum_e2e_t1")
    assert conf.keystone_authtoken.auth_url == "http://127.0.0.1:5000/v3"
    key = conf.crypto.encryption_key
    svc.write_config()
    assert _load(svc.config_files()).crypto.encryption_key == key  # made once, then kept


def test_without_a_vhost_the_run_gets_a_topic_of_its_own(cloud_dir, tmp_path):
    svc = services.MagnumServices(run_dir=tmp_path / "run", name="t2")
    svc.write_config()
    conf = _load(svc.config_files())
    assert conf.conductor.topic == "magnum-conductor-t2"
    assert conf.transport_url.endswith(":5672/")


def test_unknown_backend_is_refused(cloud_dir, tmp_path):
    with pytest.raises(services.ServiceError, match="unknown database backend"):
        services.MagnumServices(run_dir=tmp_path / "run", backend="oracle")


def test_a_process_group_is_measured_and_stopped_by_its_id(tmp_path):
    code = "import subprocess, time; subprocess.Popen(['sleep', '60']); time.sleep(60)"
    proc = procs.start("sleeper", [sys.executable, "-c", code], tmp_path / "s.log")
    deadline = time.monotonic() + 10
    while procs.memory_mib(proc.pid)[2] < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    rss, pss, count = procs.memory_mib(proc.pid)
    assert count == 2 and rss > 1 and pss > 0
    procs.stop(proc.pid, timeout=5)
    assert not proc.alive() and procs.memory_mib(proc.pid)[2] == 0


def test_cli_error_carries_the_http_status():
    err = coe.CliError(["openstack"], 1, "", "Image missing-x could not be found. "
                       "(HTTP 400) (Request-ID: req-1)")
    assert err.http_status == 400
    assert coe.CliError(["openstack"], 1, "", "boom").http_status is None
    assert coe.accepted_uuid("Request to create cluster 0a1b2c3d-0000-4000-8000-"
                             "00000000abcd accepted") == "0a1b2c3d-0000-4000-8000-00000000abcd"


def test_report_lists_steps_milestones_and_memory(capsys):
    n = narrate.Narrator(t0=time.time() - 5)
    with n.step("first"):
        n.milestone("first CREATE_COMPLETE")
    with pytest.raises(RuntimeError), n.step("second"):
        raise RuntimeError("no")
    text = n.report([("local cloud", "keystone", 170.0, 140.0),
                     ("magnum", "magnum-api", 190.0, None)])
    assert "first CREATE_COMPLETE: 5." in text
    assert "first" in text and "FAILED" in text
    assert "keystone" in text and "magnum-api" in text and "190.0" in text
    assert [s.ok for s in n.steps] == [True, False]
