"""Find drivers through the ``magnum.drivers`` entry points and pick one for a template."""

from __future__ import annotations

import functools

from stevedore import extension

from magnum_common import exception
from magnum_common.config import CONF
from magnum_common.drivers.base import Driver

NAMESPACE = "magnum.drivers"


@functools.cache
def _extensions() -> dict[str, Driver]:
    manager = extension.ExtensionManager(NAMESPACE, invoke_on_load=True)
    return {ext.name: ext.obj for ext in manager
            if ext.name not in CONF.drivers.disabled_drivers}


def all_drivers() -> dict[str, Driver]:
    """Every enabled driver by entry-point name."""
    return dict(_extensions())


def _check_beta(name: str, driver: Driver, server_type: str, os: str | None,
                coe: str) -> None:
    if driver.beta and name not in CONF.drivers.enabled_beta_drivers:
        raise exception.ClusterTypeBetaNotEnabled(
            server_type=server_type, os=os, coe=coe, driver=name)


def _serves(driver: Driver, server_type: str, os: str | None, coe: str) -> bool:
    return any((p.server_type, p.os, p.coe) == (server_type, os, coe) for p in driver.provides)


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
        if _serves(driver, server_type, os, coe):
            _check_beta(name, driver, server_type, os, coe)
            return driver
    supported = ", ".join(
        f"({p.server_type}, {p.os}, {p.coe})" for d in drivers.values() for p in d.provides)
    raise exception.ClusterTypeNotSupported(
        server_type=server_type, os=os, coe=coe, supported=supported)


def get_driver_for_template(template) -> Driver:
    return get_driver(template.server_type, template.cluster_distro, template.coe,
                      template.driver)


def resolve_driver(server_type: str, os_distro: str | None, coe: str,
                   requested: str | None) -> tuple[Driver, str | None]:
    """The driver a new template gets and the name stored in its ``driver`` field.

    The requested one, else ``[drivers] default_driver`` when it serves the tuple, else the
    first installed driver (by name) that does; a template nothing serves gets the 400 of
    ``get_driver``.
    """
    if requested:
        return get_driver(server_type, os_distro, coe, requested), requested
    default = CONF.drivers.default_driver
    if default:
        try:
            driver = get_driver(server_type, os_distro, coe, default)
        except exception.ClusterDriverNotSupported:
            driver = None
        if driver is not None and _serves(driver, server_type, os_distro, coe):
            return driver, default
    for name in sorted(_extensions()):
        if _serves(_extensions()[name], server_type, os_distro, coe):
            return get_driver(server_type, os_distro, coe, name), name
    driver = get_driver(server_type, os_distro, coe)  # nothing serves the tuple: raises
    return driver, driver.name or None
