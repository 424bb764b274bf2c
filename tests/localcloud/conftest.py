"""Every test under tests/localcloud needs the local cloud (``localcloud/``) and carries the
``localcloud`` marker; deselect them all with ``-m "not localcloud"``.

Layout: ``harness/`` (the cloud's own services: Keystone, Heat and the node simulator, Barbican,
Glance, the full tier's Nova/Neutron/Octavia, the guard), ``conductor/`` (conductor code against
the real Keystone, Barbican and Heat), ``drivers/`` (each driver's whole cycle on real Heat),
``e2e/`` (our magnum-api and conductors on the cloud, driven through ``openstack coe``),
``faults/`` (the fault suite: our services behind proxies that fail, conductors killed).

The session fixture ``localcloud`` runs ``tools/localcloud up`` when ``localcloud status`` says
the cloud is not up, or not on the tier ``MAGNUM_LOCALCLOUD_TIER`` asks for (``up`` is
idempotent and serialised by a lock, so parallel xdist workers are fine). Tests marked
``lite_tier`` / ``full_tier`` run only on that tier: the other tier's tests run in its own
session (``tox -e e2e-full``).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

from localcloud.layout import CLI, state_dir

HERE = Path(__file__).resolve().parent
TIERS = ("lite", "full")
UP_TIMEOUT = int(os.environ.get("LOCALCLOUD_UP_TIMEOUT", "1500"))


def running_tier() -> str:
    """The tier this run tests: ``MAGNUM_LOCALCLOUD_TIER`` when set (the ``localcloud``
    fixture then brings that tier up), else the one the state directory says is up, else
    ``lite`` (what ``localcloud up`` brings)."""
    if os.environ.get("MAGNUM_LOCALCLOUD_TIER"):
        return os.environ["MAGNUM_LOCALCLOUD_TIER"]
    recorded = Path(state_dir()) / "tier"
    if recorded.exists():
        return recorded.read_text().strip()
    return "lite"


def pytest_collection_modifyitems(config, items):
    """Mark every test of this folder ``localcloud``; keep only the tier under test's tests."""
    tier = running_tier()
    selected, deselected = [], []
    for item in items:
        if HERE not in Path(str(item.fspath)).resolve().parents:
            selected.append(item)
            continue
        item.add_marker(pytest.mark.localcloud)
        other = [t for t in TIERS if t != tier and item.get_closest_marker(f"{t}_tier")]
        (deselected if other else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def cloud_status() -> dict:
    res = subprocess.run([CLI, "status", "--json"], capture_output=True, text=True, timeout=120)
    try:
        return json.loads(res.stdout)
    except ValueError:
        return {"up": False, "raw": res.stdout + res.stderr}


def up_command(status: dict) -> list[str] | None:
    """The ``localcloud up`` to run, or None when the running cloud will do.

    ``MAGNUM_LOCALCLOUD_TIER`` (set by ``tox -e e2e-full``) asks for a tier: a cloud up on the
    other tier is switched. Without it, a cloud that is up is used as it is, and one that is
    down comes up on the tier its state directory records (the one being brought up while
    the owner switches tiers), else lite.
    """
    asked = os.environ.get("MAGNUM_LOCALCLOUD_TIER")
    if status.get("up") and (not asked or status.get("tier") == asked):
        return None
    return [CLI, "up"] + (["--tier", asked] if asked else [])


@pytest.fixture(scope="session")
def localcloud() -> dict:
    """The running local cloud: {'state_dir', 'clouds', 'status'}; started if needed.

    Tests that need it never skip: ``localcloud up`` is idempotent and serialised by a lock,
    so parallel workers may all ask for it.
    """
    status = cloud_status()
    command = up_command(status)
    if command:
        res = subprocess.run(command, capture_output=True, text=True, timeout=UP_TIMEOUT)
        if res.returncode != 0:
            pytest.fail("localcloud up failed:\n%s\n%s" % (res.stdout[-4000:], res.stderr[-4000:]),
                        pytrace=False)
        status = cloud_status()
        if not status.get("up"):
            pytest.fail("localcloud is not up after `localcloud up`:\n%s"
                        % json.dumps(status, indent=1), pytrace=False)
    state = Path(status["state_dir"])
    clouds = yaml.safe_load((state / "clouds.yaml").read_text())["clouds"]
    return {"state_dir": state, "clouds": clouds, "status": status}


def _session(cloud: dict):
    from keystoneauth1 import loading, session

    auth = loading.get_plugin_loader("password").load_from_options(**cloud["auth"])
    return session.Session(auth=auth)


@pytest.fixture(scope="session")
def tier(localcloud) -> str:
    return localcloud["status"]["tier"]


@pytest.fixture(scope="session")
def demo_session(localcloud):
    return _session(localcloud["clouds"]["localcloud-demo"])


@pytest.fixture(scope="session")
def admin_session(localcloud):
    return _session(localcloud["clouds"]["localcloud-admin"])


@pytest.fixture(scope="session")
def heat_demo(demo_session):
    from heatclient import client as heat_client

    return heat_client.Client("1", session=demo_session, region_name="RegionOne")


@pytest.fixture(scope="session")
def heat_admin(admin_session):
    from heatclient import client as heat_client

    return heat_client.Client("1", session=admin_session, region_name="RegionOne")
