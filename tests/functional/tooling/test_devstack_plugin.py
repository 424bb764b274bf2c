"""Run the devstack plugin's phases in a sandbox and check what it configures and runs.

The devstack function library is replaced by recording stubs (devstack_stubs.sh), but the
plugin's own work is real: magnum.conf and the uWSGI ini are written to the sandbox, and
``magnum-db-manage upgrade`` migrates a real SQLite database through the written config.
"""

from __future__ import annotations

import base64
import configparser
import os
import pathlib
import subprocess
import sys

import pytest
import sqlalchemy as sa

from magnum_common.db import migration

REPO = pathlib.Path(__file__).resolve().parents[3]
STUBS = pathlib.Path(__file__).with_name("devstack_stubs.sh")
BIN_DIR = pathlib.Path(sys.executable).parent
ALL_PHASES = ("stack install", "stack post-config", "stack extra", "unstack", "clean")


class Sandbox:
    """A devstack-shaped environment under a temporary directory."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.conf_dir = root / "etc-magnum"
        self.data_dir = root / "data"
        self.log = root / "calls.log"
        self.database = root / "magnum.sqlite"
        self.data_dir.mkdir()
        # devstack installs uWSGI system-wide; the plugin finds it on PATH.
        self.bin_dir = root / "bin"
        self.bin_dir.mkdir()
        self.uwsgi = self.bin_dir / "uwsgi"
        self.uwsgi.write_text("#!/bin/sh\nexit 0\n")
        self.uwsgi.chmod(0o755)

    @property
    def conf(self) -> pathlib.Path:
        return self.conf_dir / "magnum.conf"

    def run(self, phases: tuple[str, ...] = ALL_PHASES, services: str = "",
            env: dict[str, str] | None = None) -> list[list[str]]:
        """Source settings and plugin.sh for each phase, as stack.sh does; return the calls."""
        script = [
            "set -o errexit",
            f"source {STUBS}",
            f"source {REPO}/devstack/settings",
        ]
        if services:
            script.append(f"ENABLED_SERVICES={services}")
        script += [f"source {REPO}/devstack/plugin.sh {phase}" for phase in phases]
        environ = {
            "PATH": f"{self.bin_dir}:{os.environ['PATH']}",
            "HOME": str(self.root),
            "STUB_LOG": str(self.log),
            "STUB_PYTHON": sys.executable,
            "STUB_BIN_DIR": str(BIN_DIR),
            "STUB_DATABASE_URL": f"sqlite:///{self.database}",
            "ENABLED_SERVICES": "key,mysql,rabbit",
            "DATABASE_BACKENDS": "mysql postgresql",
            "MAGNUM_CONF_DIR": str(self.conf_dir),
            "DATA_DIR": str(self.data_dir),
            "STACK_USER": subprocess.run(["id", "-un"], capture_output=True, text=True,
                                         check=True).stdout.strip(),
            "SERVICE_PROTOCOL": "http",
            "SERVICE_HOST": "127.0.0.5",
            "SERVICE_PASSWORD": "service-secret",
            "SERVICE_PROJECT_NAME": "service",
            "SERVICE_DOMAIN_NAME": "Default",
            "SERVICE_TIMEOUT": "60",
            "KEYSTONE_SERVICE_URI": "http://127.0.0.5/identity",
            "REGION_NAME": "RegionOne",
            "LOCAL_HOSTNAME": "devstack-1",
            "ENABLE_DEBUG_LOG_LEVEL": "True",
            **(env or {}),
        }
        result = subprocess.run(["bash", "-c", "\n".join(script)], env=environ,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
        if not self.log.exists():
            return []
        return [line.split("\t") for line in self.log.read_text().splitlines()]

    def read_conf(self) -> configparser.RawConfigParser:
        parser = configparser.RawConfigParser(interpolation=None)
        assert parser.read(self.conf), "magnum.conf was not written"
        return parser


def calls_of(calls: list[list[str]], name: str) -> list[list[str]]:
    return [call[1:] for call in calls if call[0] == name]


def index_of(calls: list[list[str]], name: str, *args: str) -> int:
    for i, call in enumerate(calls):
        if call[0] == name and call[1:1 + len(args)] == list(args):
            return i
    raise AssertionError(f"{name} {args} was not called: {calls}")


@pytest.fixture
def sandbox(tmp_path: pathlib.Path) -> Sandbox:
    return Sandbox(tmp_path)


def test_stack_installs_from_the_tree_and_runs_both_services(sandbox):
    calls = sandbox.run(("stack install", "stack post-config", "stack extra"))

    assert calls_of(calls, "setup_develop") == [[str(REPO)]]
    api_cmd, = [args[1] for args in calls_of(calls, "run_process") if args[0] == "magnum-api"]
    assert api_cmd == (f"{sandbox.uwsgi} --procname-prefix magnum-api"
                       f" --ini {sandbox.conf_dir}/magnum-api-uwsgi.ini")
    cond_cmd, = [args[1] for args in calls_of(calls, "run_process") if args[0] == "magnum-cond"]
    assert cond_cmd == f"{BIN_DIR}/magnum-conductor --config-file {sandbox.conf}"
    # The conductor starts only once the API answers.
    assert index_of(calls, "wait_for_service") < index_of(calls, "run_process", "magnum-cond")


def test_magnum_conf_carries_what_the_services_need(sandbox):
    sandbox.run(("stack install", "stack post-config"))
    conf = sandbox.read_conf()

    assert conf.get("database", "connection") == f"sqlite:///{sandbox.database}"
    assert conf.get("DEFAULT", "transport_url").startswith("rabbit://")
    assert conf.get("DEFAULT", "host") == "devstack-1"
    assert conf.get("DEFAULT", "state_path") == f"{sandbox.data_dir}/magnum"
    assert conf.get("api", "api_paste_config") == f"{sandbox.conf_dir}/api-paste.ini"
    assert conf.get("oslo_policy", "policy_file") == f"{sandbox.conf_dir}/policy.yaml"
    assert conf.get("oslo_policy", "enforce_scope") == "False"
    assert conf.get("keystone_authtoken", "www_authenticate_uri") == (
        "http://127.0.0.5/identity/v3")
    assert conf.get("keystone_auth", "username") == "magnum"
    assert conf.get("keystone_auth", "password") == "service-secret"
    assert conf.get("trust", "trustee_domain_name") == "magnum"
    assert conf.get("trust", "trustee_domain_admin_name") == "trustee_domain_admin"
    assert conf.get("trust", "trustee_domain_admin_password") == "service-secret"
    assert conf.get("certificates", "cert_manager_type") == "x509keypair"
    assert conf.get("heat_client", "region_name") == "RegionOne"
    key = base64.urlsafe_b64decode(conf.get("crypto", "encryption_key"))
    assert len(key) == 32


def test_api_paste_and_uwsgi_config_are_installed(sandbox):
    calls = sandbox.run(("stack install", "stack post-config"))

    paste = sandbox.conf_dir / "api-paste.ini"
    assert paste.read_text() == (REPO / "etc" / "api-paste.ini").read_text()
    uwsgi = configparser.RawConfigParser()
    uwsgi.read(sandbox.conf_dir / "magnum-api-uwsgi.ini")
    assert uwsgi.get("uwsgi", "module") == "magnum_api.wsgi:application"
    assert uwsgi.get("uwsgi", "env") == f"MAGNUM_CONFIG_FILES={sandbox.conf}"
    assert calls_of(calls, "write_uwsgi_config") == [[
        f"{sandbox.conf_dir}/magnum-api-uwsgi.ini", "magnum_api.wsgi:application",
        "/container-infra", "", "magnum-api",
    ]]


def test_keystone_accounts_endpoint_and_trustee_domain(sandbox):
    calls = sandbox.run(("stack install", "stack post-config"))

    assert calls_of(calls, "create_service_user") == [["magnum", "admin"]]
    assert calls_of(calls, "get_or_create_service") == [
        ["magnum", "container-infra", "Container Infrastructure Management Service"]]
    assert calls_of(calls, "get_or_create_endpoint") == [
        ["container-infra", "RegionOne", "http://127.0.0.5/container-infra/v1"]]
    assert calls_of(calls, "get_or_create_domain")[0][0] == "magnum"
    assert calls_of(calls, "get_or_create_user") == [
        ["trustee_domain_admin", "service-secret", "magnum"]]
    assert calls_of(calls, "get_or_add_user_domain_role") == [
        ["admin", "user-id-trustee_domain_admin", "domain-id-magnum"]]


def test_without_keystone_no_accounts_are_created(sandbox):
    calls = sandbox.run(("stack install", "stack post-config"),
                        services="mysql,rabbit,magnum-api,magnum-cond")

    assert calls_of(calls, "create_service_user") == []
    assert calls_of(calls, "get_or_create_endpoint") == []
    assert sandbox.conf.exists()


def test_extra_creates_the_database_at_the_newest_schema(sandbox):
    calls = sandbox.run(("stack install", "stack post-config", "stack extra"))

    assert calls_of(calls, "recreate_database") == [["magnum"]]
    assert index_of(calls, "recreate_database") < index_of(calls, "run_process", "magnum-api")
    engine = sa.create_engine(f"sqlite:///{sandbox.database}")
    try:
        with engine.connect() as conn:
            revision = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
            tables = set(sa.inspect(conn).get_table_names())
    finally:
        engine.dispose()
    assert revision == migration.head()
    assert {"cluster", "cluster_template", "nodegroup", "x509keypair"} <= tables


def test_barbican_enabled_selects_barbican_cert_storage(sandbox):
    sandbox.run(("stack install", "stack post-config"),
                services="key,mysql,rabbit,barbican,magnum-api,magnum-cond")

    assert sandbox.read_conf().get("certificates", "cert_manager_type") == "barbican"


def test_explicit_cert_manager_and_scope_enforcement_win(sandbox):
    sandbox.run(("stack install", "stack post-config"),
                services="key,mysql,rabbit,barbican,magnum-api,magnum-cond",
                env={"MAGNUM_CERT_MANAGER_TYPE": "local", "MAGNUM_ENFORCE_SCOPE": "yes",
                     "MAGNUM_ENCRYPTION_KEY": "a" * 43 + "="})
    conf = sandbox.read_conf()

    assert conf.get("certificates", "cert_manager_type") == "local"
    assert conf.get("oslo_policy", "enforce_scope") == "True"
    assert conf.get("oslo_policy", "enforce_new_defaults") == "True"
    assert conf.get("crypto", "encryption_key") == "a" * 43 + "="


def test_unstack_stops_and_clean_removes_state(sandbox):
    calls = sandbox.run()

    assert calls_of(calls, "stop_process") == [["magnum-api"], ["magnum-cond"]]
    assert [f"{sandbox.conf_dir}/magnum-api-uwsgi.ini", "magnum-api"] in calls_of(
        calls, "remove_uwsgi_config")
    last_removal = max(i for i, call in enumerate(calls) if call[0] == "remove_uwsgi_config")
    assert index_of(calls, "stop_process", "magnum-cond") < last_removal
    assert not (sandbox.data_dir / "magnum").exists()


def test_plugin_does_nothing_when_magnum_is_disabled(sandbox):
    calls = sandbox.run(services="key,mysql,rabbit")

    assert [call[0] for call in calls] == ["enable_service"]
    assert not sandbox.conf.exists()
