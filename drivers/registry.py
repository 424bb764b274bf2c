"""Find drivers through the ``magnum.drivers`` entry points and pick one for a template."""

from __future__ import annotations

import functools

from oslo_config import cfg
from stevedore import extension

from drivers.base import Driver
from magnum_common import exception

CONF = cfg.CONF
NAMESPACE = "magnum.drivers"

driver_opts = [
    cfg.ListOpt("disabled_drivers", default=[],
                help="Drivers (entry-point names) that are not loaded."),
    cfg.ListOpt("enabled_beta_drivers", default=[],
                help="Beta drivers that may be used."),
]
CONF.register_opts(driver_opts, group="drivers")


@functools.cache
def _extensions() -> dict[str, Driver]:
    manager = extension.ExtensionManager(NAMESPACE, invoke_on_load=True)
    return {ext.name: ext.obj for ext in manager
            if ext.name not in CONF.drivers.disabled_drivers}


def all_drivers() -> dict[str, Driver]:
    """Every enabled driver by entry-point name."""
    return dict(_extensions())


def _check_beta(name: str, driver: Driver, server_type: str, os: str, coe: str) -> None:
    if driver.beta and name not in CONF.drivers.enabled_beta_drivers:
        raise exception.ClusterTypeBetaNotEnabled(
            server_type=server_type, os=os, coe=coe, driver=name)


def get_driver(server_type: str, os: str | None, coe: str,
               driver_name: str | None = None) -> Driver:
    """The driver named by a template's ``driver`` field, else the one for the tuple."""
    drivers = _extensions()
    if driver_name:
        driver = drivers.get(driver_name)
        if driver is None:
            raise exception.ClusterDriverNotSupported(driver_name=driver_name)
        _check_beta(driver_name, driver, server_type, os, coe)
        return driver
    for name, driver in drivers.items():
        for p in driver.provides:
            if (p.server_type, p.os, p.coe) == (server_type, os, coe):
                _check_beta(name, driver, server_type, os, coe)
                return driver
    supported = ", ".join(
        f"({p.server_type}, {p.os}, {p.coe})" for d in drivers.values() for p in d.provides)
    raise exception.ClusterTypeNotSupported(
        server_type=server_type, os=os, coe=coe, supported=supported)


def get_driver_for_template(template) -> Driver:
    return get_driver(template.server_type, template.cluster_distro, template.coe,
                      template.driver)


def list_opts():
    return [("drivers", driver_opts)]
