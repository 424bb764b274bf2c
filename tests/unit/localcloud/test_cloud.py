"""What the lite tier decides before a service runs (bringing it up is
tests/localcloud/harness): which state directory is new, which of our own files make its
virtualenv reinstall, which users and catalog entries each tier registers (every endpoint on
this machine), where Heat's database and vhost are and which types it stubs, and that a
schema without its marker is synced."""

from __future__ import annotations

import ipaddress
import os
import urllib.parse

import pytest

from localcloud import cloud, layout

LOCAL = ipaddress.ip_network("127.0.0.0/8")


@pytest.fixture
def lay(tmp_path):
    return layout.Layout(str(tmp_path / "state"))


def test_a_state_directory_is_fresh_until_something_is_marked_done(lay):
    assert cloud.Cloud(lay).fresh
    with open(lay.marker("dbsync-keystone"), "w") as f:
        f.write("done\n")
    assert not cloud.Cloud(lay).fresh  # its databases are this directory's own


def test_the_sources_that_reinstall_a_package_of_ours(tmp_path):
    root = tmp_path / "pkg"
    for name in ("pkg/driver.py", "pkg/__init__.py", "pyproject.toml", "README.md",
                 "build/lib/pkg/driver.py", "pkg.egg-info/SOURCES.txt", "pkg.egg-info/x.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    assert [os.path.relpath(p, root) for p in cloud.package_sources(str(root))] == [
        "pyproject.toml", "pkg/__init__.py", "pkg/driver.py"]
    assert cloud.venv_markers(layout.Layout(str(tmp_path))) == [
        str(tmp_path / "markers" / "venv-lite"), str(tmp_path / "markers" / "venv-full")]


@pytest.mark.parametrize("tier", ["lite", "full"])
def test_each_tier_registers_its_users_and_a_catalog_on_this_machine(lay, tier):
    state = cloud.Cloud(lay, tier)
    types = {stype for stype, _, _ in state.catalog()}
    assert {"orchestration", "key-manager", "image", "container-infra"} <= types
    assert ({"compute", "network", "load-balancer", "placement"} <= types) is (tier == "full")
    assert ("nova" in state.service_users()) is (tier == "full")
    for _, name, endpoint in state.catalog():
        host = urllib.parse.urlsplit(endpoint).hostname
        assert ipaddress.ip_address(host) in LOCAL, (name, endpoint)
    assert set(state.service_users()) <= set(state.sec)  # each has its password


def test_heat_of_each_tier_has_its_own_database_vhost_and_stubs(lay):
    assert cloud.Cloud(lay).heat_names() == ("heat", "localcloud_heat",
                                             "nova,neutron,cinder,octavia")
    assert cloud.Cloud(lay, "full").heat_names() == ("heatfull", "localcloud_heatfull",
                                                     "cinder")


def test_a_schema_is_synced_unless_marked_done_and_databases_are_local(lay):
    state = cloud.Cloud(lay)
    assert state.need_sync("glance")  # no marker: no database asked
    name, url = state.db("glance")
    assert name == layout.DB_PREFIX + "glance"
    parts = urllib.parse.urlsplit(url)
    assert (parts.hostname, parts.username, parts.password, parts.path) == (
        "127.0.0.1", name, state.sec["db_glance"], "/" + name)
    state.synced("glance")
    assert os.path.exists(lay.marker("dbsync-glance"))
    assert set(state.ports()) == {"keystone", "heat-api", "barbican", "glance",
                                  "etcd-discovery"}
