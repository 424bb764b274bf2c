"""Fixtures of the conductor functional tests (stand-in cloud, options, conductors)."""

from __future__ import annotations

import pathlib
import sys
import uuid

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import standin_driver
import support


@pytest.fixture(scope="session")
def standin_process():
    proc = support.Standin()
    yield proc
    proc.stop()


@pytest.fixture
def standin(standin_process):
    standin_process.reset()
    return standin_process


@pytest.fixture
def conductor_options(standin, monkeypatch):
    """Options for in-process use; a topic of the test's own on the shared broker.

    The registry serves only the stand-in driver for the test, then the real drivers again
    (other suites in the same worker need them).
    """
    from drivers import registry

    values = support.options(standin.url, f"magnum-conductor-test-{uuid.uuid4().hex[:8]}")
    support.apply_options(values)
    driver = standin_driver.StandinDriver()
    monkeypatch.setattr(registry, "_extensions", lambda: {driver.name: driver})
    yield values
    support.forget_required_auth_options()


@pytest.fixture
def conductor(conductor_options, db):
    from magnum_common import rpc
    from magnum_conductor.service import Conductor

    instance = Conductor()
    instance.start()
    yield instance
    instance.stop()
    rpc.cleanup()


@pytest.fixture
def localcloud_conf(localcloud):
    """The local cloud's [keystone_auth], [trust] and [heat_client], plus an encryption key.

    Applied as overrides, so other tests in the worker keep their configuration.
    """
    import configparser

    from keystoneauth1 import loading as ks_loading
    from oslo_config import cfg

    from magnum_conductor.identity import crypto, keystone

    conf = cfg.CONF
    conf.register_opts(ks_loading.get_auth_plugin_conf_options("password"), "keystone_auth")
    ini = configparser.RawConfigParser()
    ini.read(localcloud["state_dir"] / "magnum-localcloud.conf")
    for group in ("keystone_auth", "trust", "heat_client"):
        if ini.has_section(group):
            for name, value in ini.items(group):
                conf.set_override(name, value, group)
    conf.set_override("encryption_key", crypto.generate_key(), "crypto")
    keystone.reset_cache()
    yield localcloud["state_dir"]
    keystone.reset_cache()
