"""The files localcloud writes: ini values as oslo.config reads them, written atomically
and privately, and the clouds.yaml / openrc / Magnum fragment users get."""

from __future__ import annotations

import configparser
import os
import stat

import yaml

from localcloud import config, layout


def test_ini_values_as_oslo_config_reads_them(tmp_path):
    path = str(tmp_path / "etc" / "svc.conf")
    config.write_ini(path, {"DEFAULT": {"debug": True, "hosts": ["a", "b"], "skip": None},
                            "database": {"connection": "sqlite://"}}, header="one\ntwo")
    text = open(path).read()
    assert text.startswith("# one\n# two\n")
    parsed = configparser.ConfigParser()
    parsed.read(path)
    assert dict(parsed["DEFAULT"]) == {"debug": "true", "hosts": "a,b"}
    assert parsed["database"]["connection"] == "sqlite://"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert not os.path.exists(path + ".tmp")


def test_the_users_files_point_at_the_local_keystone(tmp_path):
    lay = layout.Layout(str(tmp_path))
    lay.mkdirs()
    secrets = layout.load_secrets(lay)
    config.write_user_files(lay, secrets)
    clouds = yaml.safe_load(open(lay.clouds_yaml))["clouds"]
    admin = clouds["localcloud-admin"]["auth"]
    assert admin["auth_url"] == config.auth_url() and admin["password"] == secrets["admin"]
    assert config.auth_url().startswith("http://127.0.0.1:")
    assert f"export OS_PASSWORD={secrets['demo']}" in open(tmp_path / "demo-openrc").read()
    magnum = configparser.ConfigParser(interpolation=None)
    magnum.read(lay.magnum_conf)
    assert magnum["keystone_authtoken"]["username"] == "magnum"
    assert magnum["keystone_authtoken"]["www_authenticate_uri"] == config.auth_url()
    assert config._yaml_scalar('a"b\\c') == '"a\\"b\\\\c"'
