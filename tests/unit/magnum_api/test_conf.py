"""magnum_api's options: listed once for the generator, read from files, bounded."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_api import conf
from magnum_common import config

CONF = cfg.CONF


def test_the_listed_options_are_the_registered_ones(tmp_path):
    listed = conf.list_opts()
    names = [(group, opt.name) for group, opts in listed for opt in opts]
    assert len(names) == len(set(names))
    assert ("api", "max_node_count") in names and (None, "auth_strategy") in names
    path = tmp_path / "magnum.conf"
    path.write_text("[DEFAULT]\nauth_strategy = noauth\n[api]\nmax_node_count = 12\n")
    config.parse_args([], default_config_files=[str(path)])
    assert (CONF.auth_strategy, CONF.api.max_node_count) == ("noauth", 12)


def test_an_unknown_auth_strategy_is_refused_at_start(tmp_path):
    path = tmp_path / "magnum.conf"
    path.write_text("[DEFAULT]\nauth_strategy = none\n")
    with pytest.raises(SystemExit):
        config.parse_args([], default_config_files=[str(path)])
