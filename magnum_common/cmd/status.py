"""``magnum-status upgrade check``: is this deployment sound before (and after) new code?

Each check answers one question an operator would otherwise find out from a failing service:
can the policy file be enforced, is the schema at the code's head, is any cluster stuck past
its timeout, did deleted clusters leave orphans behind, can the configured certificate
store be reached, do the drivers load. The checks read the same configuration files as the
services and talk to the same database.

Plugins are found through their entry points (policy defaults ``oslo.policy.policies:magnum``,
certificate backends ``magnum.cert_manager.backend``, drivers ``magnum.drivers``, options
``oslo.config.opts``), never by importing another package of this project.
"""

from __future__ import annotations

import collections
import contextlib
import datetime
import importlib.metadata
import inspect
import logging
import sys
from collections.abc import Iterator

from oslo_config import cfg
from oslo_db import exception as db_exc
from oslo_policy import opts as policy_opts
from oslo_policy import policy
from oslo_upgradecheck import common_checks, upgradecheck
from sqlalchemy import exc as sa_exc
from stevedore import driver

from magnum_common import states
from magnum_common.config import CONF
from magnum_common.db import api as db_api
from magnum_common.db import migration
from magnum_common.db.clusters import ClusterRepository
from magnum_common.db.orphans import OrphanRepository

LOG = logging.getLogger(__name__)

Code = upgradecheck.Code
Result = upgradecheck.Result

POLICY_NAMESPACE = "oslo.policy.policies"
POLICY_NAME = "magnum"
CERT_MANAGER_NAMESPACE = "magnum.cert_manager.backend"
DRIVERS_NAMESPACE = "magnum.drivers"
OPTS_NAMESPACE = "oslo.config.opts"
_MAX_LISTED = 10


def register_project_options(conf: cfg.ConfigOpts, groups: tuple[str, ...]) -> list[str]:
    """Register the options of ``groups`` that the project's packages declare.

    The checks read a few options owned by the conductor (``[cluster_heat]``,
    ``[certificates]``); taking them from the generator's entry points (``oslo.config.opts``,
    namespaces ``magnum.*``) keeps this module free of imports of those packages. Only the
    named groups are registered: other groups may hold required options (keystoneauth's)
    that this command has no use for. Returns one line per namespace that could not load.
    """
    problems = []
    for entry in importlib.metadata.entry_points(group=OPTS_NAMESPACE):
        if not entry.name.startswith("magnum."):
            continue
        try:
            for group, opts in entry.load()():
                name = getattr(group, "name", group)
                if name in groups:
                    conf.register_opts(opts, group=name)
        except Exception as exc:  # a broken plugin must not hide the other checks
            problems.append(f"{entry.name}: {exc}")
    return problems


def _option(group: str, name: str):
    """An option another package declares, registered from its entry point on first use.

    Its default is the declaring package's, never a copy; None when no installed package
    declares it.
    """
    if group not in CONF or name not in CONF[group]:
        register_project_options(CONF, (group,))
    try:
        return CONF[group][name]
    except (cfg.NoSuchOptError, cfg.NoSuchGroupError):
        return None


def _listed(items: list[str]) -> str:
    shown = ", ".join(items[:_MAX_LISTED])
    more = len(items) - _MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "")


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    """Silence a library's own logging while a check reports the same problem itself."""
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        logger.setLevel(level)


# --- policy ---------------------------------------------------------------------------------

def load_policy_defaults() -> list[policy.RuleDefault]:
    """The rules the API registers, through the ``oslo.policy.policies`` entry point."""
    manager = driver.DriverManager(POLICY_NAMESPACE, POLICY_NAME, invoke_on_load=False,
                                   on_load_failure_callback=_reraise)
    return list(manager.driver())


def _references(check) -> set[str]:
    """Names of the rules a parsed check refers to with ``rule:NAME``."""
    found = set()
    if isinstance(check, policy.RuleCheck):
        found.add(check.match)
    for child in getattr(check, "rules", None) or ():
        found |= _references(child)
    child = getattr(check, "rule", None)
    if child is not None:
        found |= _references(child)
    return found


def _unparseable(check_str: str) -> bool:
    """True when oslo.policy could not parse the rule and would silently deny everyone.

    The parser replaces what it cannot understand by a deny-all check, printed as ``!``.
    """
    with _quiet("oslo_policy"):
        parsed = policy.RuleDefault("probe", check_str).check
    return "!" in str(parsed) and "!" not in check_str


def validate_policy_file(conf: cfg.ConfigOpts, defaults: list[policy.RuleDefault]) -> Result:
    """Check the configured policy file against the registered default rules."""
    for group, opts in policy_opts.list_opts():
        conf.register_opts(opts, group=group)
    policy_file = conf.oslo_policy.policy_file
    path = conf.find_file(policy_file)
    if path is None:
        return Result(Code.SUCCESS, f"No policy file {policy_file!r} found: the "
                                    f"{len(defaults)} default rules apply.")
    try:
        with open(path, encoding="utf-8") as stream:
            overrides = policy.parse_file_contents(stream.read())
    except (OSError, ValueError) as exc:
        return Result(Code.FAILURE, f"Policy file {path} cannot be read: {exc}")
    if not isinstance(overrides, dict):
        return Result(Code.FAILURE, f"Policy file {path} must map rule names to rules.")
    not_strings = sorted(name for name, rule in overrides.items() if not isinstance(rule, str))
    if not_strings:
        return Result(Code.FAILURE, f"Policy file {path}: rules must be strings: "
                                    f"{_listed(not_strings)}.")
    broken = sorted(name for name, rule in overrides.items() if _unparseable(rule))
    if broken:
        return Result(Code.FAILURE, f"Policy file {path}: rules that cannot be parsed (they "
                                    f"deny every request): {_listed(broken)}.")

    enforcer = policy.Enforcer(conf, policy_file=path, use_conf=True)
    enforcer.register_defaults(defaults)
    with _quiet("oslo_policy"):
        enforcer.load_rules(force_reload=True)
    rules = enforcer.rules
    undefined = sorted(
        f"{name} -> {ref}" for name, check in rules.items()
        for ref in _references(check) if ref not in rules
    )
    if undefined:
        return Result(Code.FAILURE, f"Policy file {path}: rules refer to undefined rules: "
                                    f"{_listed(undefined)}.")

    known = {rule.name for rule in defaults}
    referenced = set().union(*(_references(check) for check in rules.values()))
    unknown = sorted(name for name in overrides if name not in known | referenced)
    if unknown:
        return Result(Code.WARNING, f"Policy file {path} sets rules magnum does not use "
                                    f"(misspelt or removed?): {_listed(unknown)}.")
    return Result(Code.SUCCESS, f"Policy file {path}: {len(overrides)} rules, all valid.")


# --- certificate store -----------------------------------------------------------------------

class _LoadFailed(Exception):
    def __init__(self, entry_point, error: Exception) -> None:
        super().__init__(str(error))
        self.entry_point = entry_point
        self.error = error


def _reraise(manager, entry_point, error: Exception) -> None:
    raise _LoadFailed(entry_point, error)


def _probe_of(backend):
    """The backend's ``probe()``, bound to an instance when it is an instance method."""
    if not hasattr(backend, "probe"):
        return None
    if inspect.isclass(backend):
        raw = inspect.getattr_static(backend, "probe")
        if not isinstance(raw, (staticmethod, classmethod)):
            return backend().probe
    return backend.probe


# --- the command ---------------------------------------------------------------------------

class Checks(upgradecheck.UpgradeCommands):
    """The checks ``magnum-status upgrade check`` runs, in order."""

    def check_policy(self) -> Result:
        try:
            defaults = load_policy_defaults()
        except Exception as exc:
            error = getattr(exc, "error", exc)
            return Result(Code.FAILURE, f"Cannot load the default policy rules (entry point "
                                        f"{POLICY_NAMESPACE}:{POLICY_NAME}): {error}")
        return validate_policy_file(CONF, defaults)

    def check_database_schema(self) -> Result:
        try:
            current = migration.version()
            head = migration.head()
        except (db_exc.DBError, sa_exc.SQLAlchemyError) as exc:
            reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            return Result(Code.FAILURE, f"Cannot reach the database: {reason}")
        if current is None:
            return Result(Code.FAILURE, "The database has no schema: run "
                                        "'magnum-db-manage upgrade'.")
        if current == head:
            return Result(Code.SUCCESS, f"Database schema is at head ({head}).")
        if not migration.known_revision(current):
            return Result(Code.FAILURE, f"The database is at revision {current}, unknown to "
                                        f"this code (head {head}): is it newer than the code?")
        return Result(Code.FAILURE, f"The database is at revision {current}, the code expects "
                                    f"{head}: run 'magnum-db-manage upgrade'.")

    def check_stuck_clusters(self) -> Result:
        """Clusters in progress for longer than their timeout allows.

        A create may take the cluster's ``create_timeout`` (else ``[cluster_heat]
        create_timeout``) minutes, any other operation ``[cluster_heat] update_timeout``,
        counted from the row's last change. The conductors' status sync fails such clusters
        itself, so finding one means no conductor is doing its periodic work.
        """
        create_timeout = _option("cluster_heat", "create_timeout")
        update_timeout = _option("cluster_heat", "update_timeout")
        if create_timeout is None or update_timeout is None:
            return Result(Code.WARNING, "No installed package declares [cluster_heat] "
                                        "create_timeout and update_timeout (is "
                                        "magnum_conductor installed?): stuck clusters "
                                        "cannot be judged.")
        try:
            clusters = ClusterRepository().in_statuses(states.IN_PROGRESS)
        except (db_exc.DBError, sa_exc.SQLAlchemyError) as exc:
            reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            return Result(Code.FAILURE, f"Cannot read clusters: {reason}")
        now = db_api.now()
        stuck = []
        for cluster in clusters:
            since = cluster.updated_at or cluster.created_at
            if cluster.status == states.CREATE_IN_PROGRESS:
                timeout = cluster.create_timeout or create_timeout
            else:
                timeout = update_timeout
            if since is None or now - since <= datetime.timedelta(minutes=timeout):
                continue
            minutes = int((now - since).total_seconds() // 60)
            stuck.append(f"{cluster.uuid} ({cluster.status} for {minutes} min, "
                         f"timeout {timeout} min)")
        if stuck:
            return Result(Code.WARNING, f"{len(stuck)} cluster(s) in progress past their "
                                        f"timeout: {_listed(stuck)}. Running conductors mark "
                                        "such clusters failed: check that one runs and read "
                                        "its log for these clusters.")
        return Result(Code.SUCCESS, f"No cluster in progress past its timeout "
                                    f"({len(clusters)} in progress).")

    def check_orphans(self) -> Result:
        """Trusts, trustee users, certificate bundles and stacks deleted clusters left.

        A cluster delete that could not remove one after its retries records it as an
        orphan, as it does a stack whose create may still land after the delete; the
        conductors' sweeper keeps retrying, so orphans that stay mean a service keeps
        refusing (the conductor log says why).
        """
        try:
            rows = OrphanRepository().list(None)
        except (db_exc.DBError, sa_exc.SQLAlchemyError) as exc:
            reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
            return Result(Code.FAILURE, f"Cannot read orphans: {reason}")
        if not rows:
            return Result(Code.SUCCESS, "No orphans: deleted clusters left nothing behind.")
        counts = collections.Counter(row.kind for row in rows)
        total = len(rows)
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
        listed = [f"{row.kind} {row.ref} of cluster {row.cluster_id} ({row.attempts} "
                  f"attempts: {row.last_error})" for row in rows]
        return Result(Code.WARNING, f"{total} orphan(s) of deleted clusters ({kinds}): "
                                    f"{_listed(listed)}. The conductors' sweeper retries "
                                    "them; read its log for why they stay.")

    def check_cert_manager(self, name: str | None = None) -> Result:
        """Load the configured backend (or ``name``) and call its ``probe()`` if it has one.

        ``probe()`` takes no argument (an instance method gets a backend built without
        arguments) and raises when the store cannot be used.
        """
        name = name or _option("certificates", "cert_manager_type")
        if name is None:
            return Result(Code.WARNING, "No installed package declares [certificates] "
                                        "cert_manager_type (is magnum_conductor installed?): "
                                        "the certificate store cannot be checked.")
        try:
            backend = driver.DriverManager(CERT_MANAGER_NAMESPACE, name, invoke_on_load=False,
                                           on_load_failure_callback=_reraise).driver
        except _LoadFailed as exc:
            if isinstance(exc.error, ModuleNotFoundError):
                return Result(Code.WARNING, f"Cert manager backend {name!r} is declared "
                                            f"({exc.entry_point.value}) but its module is not "
                                            f"installed: {exc.error}. Clusters cannot get "
                                            "certificates until it is.")
            return Result(Code.FAILURE, f"Cert manager backend {name!r} failed to load: "
                                        f"{exc.error}")
        except Exception as exc:  # stevedore's NoMatches and friends
            available = sorted(e.name for e in importlib.metadata.entry_points(
                group=CERT_MANAGER_NAMESPACE))
            return Result(Code.FAILURE, f"No cert manager backend {name!r} "
                                        f"([certificates] cert_manager_type); available: "
                                        f"{', '.join(available)}. ({exc})")
        try:
            probe = _probe_of(backend)
            if probe is None:
                return Result(Code.SUCCESS, f"Cert manager backend {name!r} loads; it has no "
                                            "probe(), so reachability was not tested.")
            probe()
        except Exception as exc:
            return Result(Code.FAILURE, f"Cert manager backend {name!r} is not usable: "
                                        f"{type(exc).__name__}: {exc}")
        return Result(Code.SUCCESS, f"Cert manager backend {name!r} is reachable.")

    def check_drivers(self, namespace: str = DRIVERS_NAMESPACE) -> Result:
        """Every enabled driver (``magnum.drivers`` entry points) imports and instantiates."""
        disabled = set(CONF.drivers.disabled_drivers)
        loaded, broken = [], []
        for entry in sorted(importlib.metadata.entry_points(group=namespace),
                            key=lambda e: e.name):
            if entry.name in disabled:
                continue
            try:
                entry.load()()
            except Exception as exc:
                broken.append(f"{entry.name} ({type(exc).__name__}: {exc})")
            else:
                loaded.append(entry.name)
        if broken:
            return Result(Code.FAILURE, f"Drivers that cannot be loaded: {_listed(broken)}. "
                                        "Templates using them are refused.")
        if not loaded:
            return Result(Code.FAILURE, "No cluster driver is installed and enabled "
                                        "([drivers] disabled_drivers).")
        return Result(Code.SUCCESS, f"Drivers: {', '.join(loaded)}.")

    _upgrade_checks = (
        ("Policy file", check_policy),
        ("Policy file JSON to YAML migration",
         (common_checks.check_policy_json, {"conf": CONF})),
        ("Database schema", check_database_schema),
        ("Clusters stuck in progress", check_stuck_clusters),
        ("Orphans of deleted clusters", check_orphans),
        ("Certificate store", check_cert_manager),
        ("Cluster drivers", check_drivers),
    )


def main(argv: list[str] | None = None) -> int:
    for problem in register_project_options(CONF, ("cluster_heat", "certificates", "drivers")):
        LOG.debug("options not loaded: %s", problem)
    # A check must report an unreachable database at once, not retry for minutes.
    CONF.set_override("max_retries", 0, "database")
    return upgradecheck.main(CONF, project="magnum", upgrade_command=Checks(),
                             argv=sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())
