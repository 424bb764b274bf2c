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
    from magnum_common.drivers import registry
    from magnum_conductor.identity import keystone

    values = support.options(standin.url, f"magnum-conductor-test-{uuid.uuid4().hex[:8]}")
    support.apply_options(values)
    driver = standin_driver.StandinDriver()
    monkeypatch.setattr(registry, "_extensions", lambda: {driver.name: driver})
    yield values
    keystone.reset_cache()  # its sessions were built from this test's options


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
def fleet(conductor_options, standin, tmp_path, db_any):
    fleet = support.Fleet(tmp_path, db_any, conductor_options)
    yield fleet
    fleet.stop()
