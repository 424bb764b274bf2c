"""Generated samples, generator inputs and the deployment files shipped in etc/."""

from __future__ import annotations

import configparser
import difflib
import importlib.metadata
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[3]
ETC = REPO / "etc"
SAMPLES = ("magnum.conf.sample", "policy.yaml")


def _namespaces(generator_conf: pathlib.Path) -> list[str]:
    return re.findall(r"^namespace\s*=\s*(\S+)\s*$", generator_conf.read_text(), re.M)


def test_checked_in_samples_are_what_the_code_generates(tmp_path):
    result = subprocess.run(
        [str(REPO / "tools" / "generate-samples.sh"), str(tmp_path)],
        cwd=REPO, env={**os.environ, "PYTHON": sys.executable},
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr

    for name in SAMPLES:
        fresh = (tmp_path / name).read_text().splitlines()
        checked_in = (ETC / name).read_text().splitlines()
        diff = "\n".join(list(difflib.unified_diff(
            checked_in, fresh, f"etc/{name}", "generated", lineterm=""))[:40])
        assert not diff, f"etc/{name} is stale: run tools/generate-samples.sh\n{diff}"


def test_every_project_option_namespace_is_in_the_config_generator_input():
    declared = {entry.name for entry in importlib.metadata.entry_points(group="oslo.config.opts")
                if entry.name.startswith("magnum.")}
    listed = set(_namespaces(ETC / "magnum-config-generator.conf"))

    assert declared == {"magnum.common", "magnum.api", "magnum.conductor", "magnum.drivers"}
    assert declared <= listed
    assert {"oslo.db", "oslo.log", "oslo.messaging", "oslo.policy", "oslo.middleware.cors",
            "oslo.middleware.http_proxy_to_wsgi", "keystonemiddleware.auth_token"} <= listed


def test_policy_generator_input_names_the_policy_entry_point():
    declared = {entry.name for entry in
                importlib.metadata.entry_points(group="oslo.policy.policies")}

    assert _namespaces(ETC / "magnum-policy-generator.conf") == ["magnum"]
    assert "magnum" in declared


def test_uwsgi_config_serves_the_api_module():
    ini = configparser.RawConfigParser(strict=False)
    ini.read(ETC / "magnum-api-uwsgi.ini")

    assert ini.get("uwsgi", "module") == "magnum_api.wsgi:application"
    assert ini.get("uwsgi", "http-socket").endswith(":9511")
    assert ini.getboolean("uwsgi", "lazy-apps")
    assert ini.get("uwsgi", "env") == "MAGNUM_CONFIG_FILES=/etc/magnum/magnum.conf"


def _unit(name: str) -> configparser.RawConfigParser:
    unit = configparser.RawConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(ETC / "systemd" / name)
    return unit


def test_systemd_units_start_the_shipped_commands():
    scripts = {entry.name for entry in importlib.metadata.entry_points(group="console_scripts")}

    api = _unit("magnum-api.service").get("Service", "ExecStart").split()
    assert api[0].endswith("/uwsgi")
    assert api[1:] == ["--ini", "/etc/magnum/magnum-api-uwsgi.ini"]

    conductor = _unit("magnum-conductor.service").get("Service", "ExecStart").split()
    assert pathlib.Path(conductor[0]).name in scripts
    assert conductor[1:] == ["--config-file", "/etc/magnum/magnum.conf"]

    for name in ("magnum-api.service", "magnum-conductor.service"):
        unit = _unit(name)
        assert unit.get("Service", "User") == "magnum"
        assert unit.get("Service", "Restart") == "on-failure"
        assert unit.get("Install", "WantedBy") == "multi-user.target"
