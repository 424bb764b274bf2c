"""drivers/heat's options: registered once under their groups, listed for the generator,
bounded where a value would make no sense."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from drivers.heat import conf

CONF = cfg.CONF


def test_every_listed_option_is_registered_and_readable():
    listed = conf.list_opts()
    assert [group for group, _ in listed] == sorted({group for group, _ in listed})
    for group, opts in listed:
        for opt in opts:
            assert getattr(CONF[group], opt.dest) == opt.default or opt.default is None


def test_a_value_out_of_bounds_is_refused(tmp_path):
    from magnum_common import config

    path = tmp_path / "magnum.conf"
    path.write_text("[heat_client]\ntimeout = 0\n")
    with pytest.raises(SystemExit):
        config.parse_args([], default_config_files=[str(path)])
    path.write_text("[heat_client]\ntimeout = 5\n[conductor]\nheat_attempts = 2\n")
    config.parse_args([], default_config_files=[str(path)])
    assert (CONF.heat_client.timeout, CONF.conductor.heat_attempts) == (5.0, 2)
