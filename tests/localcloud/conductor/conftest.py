"""Fixtures of the conductor tests against the local cloud's real Keystone, Barbican and Heat.

The service credentials come from the cloud's ``magnum-localcloud.conf`` fragment.
"""

from __future__ import annotations

import pytest

from localcloud.config import login
from localcloud.layout import Layout


@pytest.fixture(scope="session")
def localcloud_token(localcloud):
    """``localcloud_token("demo")``: a token of a local-cloud user and its body."""
    layout = Layout(str(localcloud["state_dir"]))
    return lambda user: login(layout, user)


@pytest.fixture
def localcloud_conf(localcloud):
    """The local cloud's [keystone_auth], [trust] and [heat_client], plus an encryption key.

    Applied as overrides, so other tests in the worker keep their configuration.
    """
    import configparser

    from keystoneauth1 import loading as ks_loading
    from oslo_config import cfg

    from drivers.heat import conf as _heat_conf  # noqa: F401 - registers [heat_client]
    from magnum_common import crypto
    from magnum_conductor.identity import keystone

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
