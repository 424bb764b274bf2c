"""magnum_common's configuration: options registered on import, read from files, a
malformed value refused at start rather than at first use."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import config

CONF = cfg.CONF


def test_a_config_file_value_is_read_and_typed(tmp_path):
    conf = tmp_path / "magnum.conf"
    conf.write_text("[DEFAULT]\nservice_down_time = 42\n[conductor]\ncast_retry = 5\n"
                    "[drivers]\ndisabled_drivers = a, b\n")
    config.parse_args([], default_config_files=[str(conf)])
    assert CONF.service_down_time == 42
    assert CONF.conductor.cast_retry == 5
    assert CONF.drivers.disabled_drivers == ["a", "b"]


def test_a_malformed_value_stops_the_process_at_start(tmp_path, capsys):
    conf = tmp_path / "magnum.conf"
    conf.write_text("[conductor]\ncast_retry = -1\n")
    with pytest.raises(SystemExit) as raised:
        config.parse_args([], default_config_files=[str(conf)])
    assert raised.value.code == 1
    assert "cast_retry" in capsys.readouterr().err


def test_the_generator_namespace_lists_every_group_once():
    groups = config.list_opts()
    names = [group for group, _ in groups]
    assert len(names) == len(set(names))
    assert {"conductor", "crypto", "database", "drivers", "trust"} <= set(names)
    options = {opt.name for _, opts in groups for opt in opts}
    assert {"password_symbols", "service_down_time", "encryption_key", "host"} <= options
