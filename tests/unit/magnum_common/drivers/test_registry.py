"""Drivers are found through their entry points (the three installed with this project)
and picked for a template by its (server_type, os_distro, coe) or its driver field."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import exception
from magnum_common.drivers import registry

COREOS = ("vm", "fedora-coreos", "kubernetes")


@pytest.fixture(autouse=True)
def _fresh_extensions():
    """The loaded drivers are cached per process; each test loads them under its options."""
    registry._extensions.cache_clear()
    yield
    registry._extensions.cache_clear()


def test_the_driver_serving_a_template_tuple_is_found():
    assert set(registry.all_drivers()) == {"k8s_fedora_atomic_v1", "k8s_fedora_coreos_v1",
                                           "k8s_ubuntu_v1"}
    assert registry.get_driver(*COREOS).name == "k8s_fedora_coreos_v1"
    assert registry.get_driver("vm", "ubuntu", "kubernetes").name == "k8s_ubuntu_v1"


def test_a_named_driver_wins_and_an_unknown_name_or_tuple_is_refused():
    assert registry.get_driver(*COREOS, driver_name="k8s_ubuntu_v1").name == "k8s_ubuntu_v1"
    with pytest.raises(exception.ClusterDriverNotSupported):
        registry.get_driver(*COREOS, driver_name="no_such_driver")
    with pytest.raises(exception.ClusterTypeNotSupported, match=r"\(vm, ubuntu, kubernetes\)"):
        registry.get_driver("bm", "fedora-coreos", "kubernetes")


def test_a_disabled_driver_is_not_loaded():
    cfg.CONF.set_override("disabled_drivers", ["k8s_fedora_coreos_v1"], "drivers")

    assert "k8s_fedora_coreos_v1" not in registry.all_drivers()
    with pytest.raises(exception.ClusterTypeNotSupported):
        registry.get_driver(*COREOS)


def test_a_new_template_gets_the_requested_then_the_default_then_the_first_serving_driver():
    assert registry.resolve_driver(*COREOS, None)[1] == "k8s_fedora_coreos_v1"
    assert registry.resolve_driver(*COREOS, "k8s_ubuntu_v1")[1] == "k8s_ubuntu_v1"
    cfg.CONF.set_override("default_driver", "k8s_ubuntu_v1", "drivers")
    # the default serves ubuntu only: a coreos template still gets the coreos driver
    assert registry.resolve_driver(*COREOS, None)[1] == "k8s_fedora_coreos_v1"
    assert registry.resolve_driver("vm", "ubuntu", "kubernetes", None)[1] == "k8s_ubuntu_v1"
