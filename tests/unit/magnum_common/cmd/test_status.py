"""magnum-status upgrade checks, each against real files, a real SQLite database and real
entry points."""

from __future__ import annotations

import datetime
import importlib.util
import pathlib
import textwrap

import pytest
import sqlalchemy as sa
from oslo_config import cfg
from oslo_policy import opts as policy_opts
from oslo_policy import policy
from oslo_upgradecheck.upgradecheck import Code
from stevedore.extension import ExtensionManager

from magnum_common import states
from magnum_common.cmd import status
from magnum_common.db import api as db_api
from magnum_common.db import migration
from magnum_common.db.clusters import ClusterRepository
from magnum_common.utils import generate_uuid

CONF = cfg.CONF

DEFAULTS = [
    policy.RuleDefault("context_is_admin", "role:admin"),
    policy.RuleDefault("admin_or_owner", "is_admin:True or project_id:%(project_id)s"),
    policy.RuleDefault("cluster:get", "rule:admin_or_owner"),
    policy.RuleDefault("cluster:create", "rule:admin_or_owner"),
]


# --- policy ----------------------------------------------------------------------------------

@pytest.fixture
def policy_file(tmp_path):
    """Write a policy file and point [oslo_policy] policy_file at it."""
    for group, opts in policy_opts.list_opts():
        CONF.register_opts(opts, group=group)

    def write(text: str, name: str = "policy.yaml") -> pathlib.Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text))
        CONF.set_override("policy_file", str(path), "oslo_policy")
        return path

    return write


def test_policy_without_a_file_uses_the_defaults(tmp_path):
    for group, opts in policy_opts.list_opts():
        CONF.register_opts(opts, group=group)
    CONF.set_override("policy_file", str(tmp_path / "absent.yaml"), "oslo_policy")

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.SUCCESS
    assert "4 default rules apply" in result.details


def test_policy_file_with_valid_overrides_and_a_helper_rule(policy_file):
    policy_file("""
        cluster_reader: "role:reader or rule:admin_or_owner"
        cluster:get: "rule:cluster_reader"
        cluster:create: "role:admin"
    """)

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.SUCCESS, result.details
    assert "3 rules, all valid" in result.details


def test_policy_file_that_is_not_yaml_fails(policy_file):
    policy_file('cluster:get: "role:admin\n  : [\n')

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.FAILURE
    assert "cannot be read" in result.details


def test_policy_file_that_is_not_a_mapping_fails(policy_file):
    policy_file("- role:admin\n")

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.FAILURE
    assert "must map rule names" in result.details


def test_policy_rule_that_does_not_parse_fails_instead_of_denying_silently(policy_file):
    policy_file("""
        cluster:get: "role:admin or"
        cluster:create: "role:admin"
    """)

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.FAILURE
    assert "cluster:get" in result.details
    assert "cluster:create" not in result.details


def test_policy_rule_referring_to_an_undefined_rule_fails(policy_file):
    policy_file('cluster:get: "rule:admin_or_ownr"\n')

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.FAILURE
    assert "cluster:get -> admin_or_ownr" in result.details


def test_policy_rule_magnum_does_not_know_is_a_warning(policy_file):
    policy_file("""
        cluster:gett: "role:admin"
        cluster:get: "role:admin"
    """)

    result = status.validate_policy_file(CONF, DEFAULTS)

    assert result.code == Code.WARNING
    assert "cluster:gett" in result.details
    assert "cluster:get," not in result.details


def test_policy_defaults_come_from_the_api_entry_point():
    api_present = importlib.util.find_spec("magnum_api.policies") is not None
    result = status.Checks().check_policy()
    if api_present:
        defaults = status.load_policy_defaults()
        assert defaults and all(isinstance(rule, policy.RuleDefault) for rule in defaults)
        assert result.code != Code.FAILURE or "Cannot load" not in result.details
    else:
        assert result.code == Code.FAILURE
        assert "oslo.policy.policies:magnum" in result.details


# --- database schema -------------------------------------------------------------------------

def _use_database(url: str) -> None:
    CONF.set_override("connection", url, "database")
    CONF.set_override("max_retries", 0, "database")
    db_api.reset_engine()


def test_schema_at_head_succeeds(db):
    result = status.Checks().check_database_schema()

    assert result.code == Code.SUCCESS
    assert migration.head() in result.details


def test_database_without_schema_fails(tmp_path):
    _use_database(f"sqlite:///{tmp_path / 'empty.sqlite'}")

    result = status.Checks().check_database_schema()

    assert result.code == Code.FAILURE
    assert "magnum-db-manage upgrade" in result.details


def test_database_at_a_revision_the_code_does_not_know_fails(db):
    with db_api.writer() as session:
        session.execute(sa.text("UPDATE alembic_version SET version_num = 'f00dfeed'"))

    result = status.Checks().check_database_schema()

    assert result.code == Code.FAILURE
    assert "f00dfeed" in result.details and "unknown" in result.details


def test_unreachable_database_fails_with_the_reason():
    _use_database("mysql+pymysql://root@127.0.0.1:1/magnum")

    result = status.Checks().check_database_schema()

    assert result.code == Code.FAILURE
    assert "Cannot reach the database" in result.details


# --- clusters stuck in progress --------------------------------------------------------------

def _cluster(status_: str, minutes_ago: int, create_timeout: int | None = None) -> str:
    uuid = generate_uuid()
    ClusterRepository().create(None, {
        "uuid": uuid, "name": f"c-{uuid[:6]}", "project_id": "p1", "user_id": "u1",
        "status": status_, "create_timeout": create_timeout,
        "created_at": db_api.now() - datetime.timedelta(days=1),
        "updated_at": db_api.now() - datetime.timedelta(minutes=minutes_ago),
    })
    return uuid


def test_no_cluster_past_its_timeout_succeeds(db):
    _cluster(states.CREATE_IN_PROGRESS, minutes_ago=30)
    _cluster(states.UPDATE_IN_PROGRESS, minutes_ago=50, create_timeout=10)
    _cluster(states.CREATE_COMPLETE, minutes_ago=60 * 24 * 5)

    result = status.Checks().check_stuck_clusters()

    assert result.code == Code.SUCCESS
    assert "2 in progress" in result.details


def test_clusters_in_progress_past_their_timeout_are_reported(db):
    default_timeout = _cluster(states.CREATE_IN_PROGRESS, minutes_ago=120)
    own_timeout = _cluster(states.CREATE_IN_PROGRESS, minutes_ago=20, create_timeout=10)
    deleting = _cluster(states.DELETE_IN_PROGRESS, minutes_ago=61, create_timeout=90)
    recent = _cluster(states.UPDATE_IN_PROGRESS, minutes_ago=20, create_timeout=10)
    failed = _cluster(states.CREATE_FAILED, minutes_ago=600)

    result = status.Checks().check_stuck_clusters()

    assert result.code == Code.WARNING
    assert result.details.startswith("3 cluster(s)")
    assert f"{default_timeout} (CREATE_IN_PROGRESS for 120 min, timeout 60 min)" in result.details
    assert f"{own_timeout} (CREATE_IN_PROGRESS for 20 min, timeout 10 min)" in result.details
    # create_timeout bounds the create only; other operations have [cluster_heat] update_timeout.
    assert f"{deleting} (DELETE_IN_PROGRESS for 61 min, timeout 60 min)" in result.details
    assert recent not in result.details and failed not in result.details


def test_stuck_cluster_check_without_schema_fails(tmp_path):
    _use_database(f"sqlite:///{tmp_path / 'empty.sqlite'}")

    result = status.Checks().check_stuck_clusters()

    assert result.code == Code.FAILURE
    assert "Cannot read clusters" in result.details


# --- certificate store -----------------------------------------------------------------------

BACKENDS = '''
class Healthy:
    probed = 0

    def probe(self):
        type(self).probed += 1


class Unreachable:
    @staticmethod
    def probe():
        raise ConnectionError("key-manager endpoint refused the connection")


class NoProbe:
    pass
'''


@pytest.fixture
def cert_backends(tmp_path, monkeypatch):
    """Install backends under ``magnum.cert_manager.backend`` as a real distribution."""
    (tmp_path / "fake_cert_backends.py").write_text(BACKENDS)
    dist = tmp_path / "fake_cert_backends-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-cert-backends\n"
                                   "Version: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[magnum.cert_manager.backend]\n"
        "fake-healthy = fake_cert_backends:Healthy\n"
        "fake-unreachable = fake_cert_backends:Unreachable\n"
        "fake-noprobe = fake_cert_backends:NoProbe\n"
        "fake-missing = fake_cert_backends_not_installed.store:CertManager\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    # stevedore caches a namespace's entry points per process; start from a clean cache.
    monkeypatch.setattr(ExtensionManager, "ENTRY_POINT_CACHE", {})
    yield
    import sys
    sys.modules.pop("fake_cert_backends", None)


def test_cert_manager_that_answers_its_probe_succeeds(cert_backends):
    result = status.Checks().check_cert_manager("fake-healthy")

    assert result.code == Code.SUCCESS, result.details
    import fake_cert_backends
    assert fake_cert_backends.Healthy.probed == 1


def test_cert_manager_whose_probe_raises_fails(cert_backends):
    result = status.Checks().check_cert_manager("fake-unreachable")

    assert result.code == Code.FAILURE
    assert "ConnectionError: key-manager endpoint refused" in result.details


def test_cert_manager_without_probe_loads_but_says_it_was_not_probed(cert_backends):
    result = status.Checks().check_cert_manager("fake-noprobe")

    assert result.code == Code.SUCCESS
    assert "no probe()" in result.details


def test_cert_manager_whose_module_is_not_installed_is_a_warning(cert_backends):
    result = status.Checks().check_cert_manager("fake-missing")

    assert result.code == Code.WARNING
    assert "fake_cert_backends_not_installed" in result.details


def test_unknown_cert_manager_type_fails_and_lists_the_known_ones(cert_backends):
    result = status.Checks().check_cert_manager("vault")

    assert result.code == Code.FAILURE
    assert "'vault'" in result.details
    assert "fake-healthy" in result.details and "x509keypair" in result.details


# --- drivers --------------------------------------------------------------------------------

DRIVERS = '''
class Good:
    pass


class Broken:
    def __init__(self):
        raise RuntimeError("template directory missing")
'''


@pytest.fixture
def driver_group(tmp_path, monkeypatch):
    """Drivers under a test entry-point group, installed as a real distribution."""
    (tmp_path / "fake_drivers.py").write_text(DRIVERS)
    dist = tmp_path / "fake_drivers-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-drivers\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[magnum_test.drivers]\n"
        "good = fake_drivers:Good\n"
        "broken = fake_drivers:Broken\n"
        "absent = fake_drivers_not_installed:Driver\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "magnum_test.drivers"
    import sys
    sys.modules.pop("fake_drivers", None)


def test_drivers_that_fail_to_load_are_a_failure(driver_group):
    result = status.Checks().check_drivers(driver_group)

    assert result.code == Code.FAILURE
    assert "broken (RuntimeError: template directory missing)" in result.details
    assert "absent (ModuleNotFoundError" in result.details
    assert "good" not in result.details


def test_disabled_drivers_are_not_loaded(driver_group):
    CONF.import_opt("disabled_drivers", "magnum_common.drivers.registry", group="drivers")
    CONF.set_override("disabled_drivers", ["broken", "absent"], "drivers")

    result = status.Checks().check_drivers(driver_group)

    assert result.code == Code.SUCCESS
    assert result.details == "Drivers: good."


def test_no_enabled_driver_is_a_failure(driver_group):
    CONF.import_opt("disabled_drivers", "magnum_common.drivers.registry", group="drivers")
    CONF.set_override("disabled_drivers", ["good", "broken", "absent"], "drivers")

    result = status.Checks().check_drivers(driver_group)

    assert result.code == Code.FAILURE
    assert "No cluster driver" in result.details


# --- options of the other packages -----------------------------------------------------------

def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def test_only_the_named_groups_are_registered_from_the_generator_entry_points():
    conf = cfg.ConfigOpts()

    problems = status.register_project_options(conf, ("conductor",))

    assert "topic" in conf.conductor  # [conductor] topic, namespace magnum.common
    assert "host" not in conf  # [DEFAULT] was not asked for
    failed = {problem.split(":")[0] for problem in problems}
    for namespace, module in (("magnum.api", "magnum_api.conf"),
                              ("magnum.conductor", "magnum_conductor.conf"),
                              ("magnum.drivers", "drivers.heat.conf")):
        if not _importable(module):
            assert namespace in failed, problems


def test_conductor_options_are_read_when_the_conductor_declares_them():
    conf = cfg.ConfigOpts()
    problems = status.register_project_options(conf, ("cluster_heat", "certificates"))

    if _importable("magnum_conductor.conf") and not any(
            p.startswith("magnum.conductor") for p in problems):
        assert conf.cluster_heat.create_timeout == 60
        assert conf.certificates.cert_manager_type == "barbican"
    else:
        assert "cluster_heat" not in conf
