"""The conductor's options: every group listed for the generator, per-operation run times
with a fallback, ``[keystone_auth]`` showing the password plugin's options."""

from __future__ import annotations

from oslo_config import cfg

from magnum_conductor import conf

CONF = cfg.CONF


def test_per_operation_timeouts_fall_back_to_the_default():
    CONF.set_override("operation_timeout", 3600, "conductor")
    CONF.set_override("operation_timeouts", {"cluster_upgrade": "7200",
                                             "cluster_delete": "0", "cluster_resize": "x"},
                      "conductor")
    assert conf.operation_timeout("cluster_upgrade") == 7200
    assert conf.operation_timeout("cluster_delete") == 1  # never less than a second
    assert conf.operation_timeout("cluster_resize") == 3600  # unreadable: the default
    assert conf.operation_timeout("cluster_create") == conf.operation_timeout(None) == 3600


def test_the_generator_sees_every_group_once_with_the_auth_plugin_options():
    listed = conf.list_opts()
    groups = [group for group, _ in listed]
    assert len(groups) == len(set(groups)) and "conductor" in groups
    auth = dict(listed)[conf.AUTH_GROUP]
    names = [opt.dest for opt in auth]
    assert len(names) == len(set(names))
    assert {"auth_url", "username", "password", "timeout", "cafile"} <= set(names)
    for group, opts in listed:
        if group == conf.AUTH_GROUP:
            continue
        for opt in opts:
            getattr(CONF[group], opt.dest)  # registered where it is listed
