"""Shared fixtures: configuration and real databases (SQLite, MariaDB, PostgreSQL).

``db`` gives each test a freshly migrated SQLite database (a copy of one migrated once per
session). ``db_any`` runs the test once per backend against the machine's MariaDB and
PostgreSQL as well; each backend's database is created and migrated once per session (per
xdist worker) and emptied between tests.
"""

from __future__ import annotations

import functools
import os
import shutil

import pytest
import sqlalchemy as sa
from oslo_config import cfg

from magnum_common import config as magnum_config
from magnum_common.db import api as db_api
from magnum_common.db import migration, models

CONF = cfg.CONF
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
MYSQL_SERVER = os.environ.get("MAGNUM_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3306")
PG_SERVER = os.environ.get("MAGNUM_TEST_POSTGRESQL", "postgresql+psycopg2://postgres@127.0.0.1:5432")
BACKENDS = ("sqlite", "mysql", "postgresql")


@pytest.fixture(scope="session", autouse=True)
def _config():
    """Parse an empty command line once so every registered option is readable."""
    magnum_config.parse_args([], default_config_files=[])
    yield


@pytest.fixture(autouse=True)
def _reset_overrides():
    """Undo a test's overrides and the auth plugin options it registered; re-parse so CONF
    stays initialised for the next test."""
    yield
    CONF.reset()
    _forget_required_auth_options()
    magnum_config.parse_args([], default_config_files=[])


@functools.cache
def _required_auth_plugin_options() -> tuple[cfg.Opt, ...]:
    from keystoneauth1 import loading

    found = {}
    for name in loading.get_available_plugin_names():
        for opt in loading.get_auth_plugin_conf_options(name):
            if opt.required:
                found.setdefault(opt.dest, opt)
    return tuple(found.values())


def _forget_required_auth_options() -> None:
    """keystoneauth registers a plugin's options on the global CONF where a test loads the
    plugin (an auth group: one with ``auth_type``), some of them required (the password
    plugin's auth_url). Left there, every later parse of a configuration without them fails:
    the next test would depend on which ran before it. CONF must be reset first."""
    for group in list(CONF):
        if isinstance(CONF[group], cfg.ConfigOpts.GroupAttr) and \
                "auth_type" in CONF[group].keys():
            for opt in _required_auth_plugin_options():
                CONF.unregister_opt(opt, group)


def _use(url: str) -> None:
    CONF.set_override("connection", url, "database")
    db_api.reset_engine()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("db") / "template.sqlite"
    _use(f"sqlite:///{path}")
    migration.upgrade()
    db_api.reset_engine()
    return str(path)


@pytest.fixture
def db(_sqlite_template, tmp_path) -> str:
    """A migrated, empty SQLite database configured as ``[database] connection``."""
    path = tmp_path / "magnum.sqlite"
    shutil.copy(_sqlite_template, path)
    url = f"sqlite:///{path}"
    _use(url)
    yield url
    db_api.reset_engine()


def _server_database(server: str, name: str) -> str:
    """Create (or re-create) database ``name`` on a server; fail loudly if it is down."""
    engine = sa.create_engine(f"{server}/{'postgres' if 'postgres' in server else ''}",
                              isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
            conn.execute(sa.text(f"CREATE DATABASE {name}"))
    except sa.exc.OperationalError as exc:
        pytest.fail(f"database server {server} is not reachable: {exc.orig}", pytrace=False)
    finally:
        engine.dispose()
    return f"{server}/{name}"  # no charset: what operators write (the engine picks utf8mb4)


def _drop_database(server: str, name: str) -> None:
    engine = sa.create_engine(f"{server}/{'postgres' if 'postgres' in server else ''}",
                              isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def _server_databases():
    """Databases on MariaDB and PostgreSQL for this test process, created lazily.

    Named after the xdist worker and the process id, so concurrent test runs on one
    machine never share (or drop) each other's database; dropped at the end.
    """
    created: dict[str, str] = {}
    yield created
    db_api.reset_engine()
    for backend in created:
        _drop_database(MYSQL_SERVER if backend == "mysql" else PG_SERVER, _db_name())


def _db_name() -> str:
    return f"magnum_test_{WORKER}_{os.getpid()}"


def _backend_url(backend: str, cache: dict[str, str]) -> str:
    if backend not in cache:
        server = MYSQL_SERVER if backend == "mysql" else PG_SERVER
        url = _server_database(server, _db_name())
        _use(url)
        migration.upgrade()
        cache[backend] = url
    return cache[backend]


def _empty_all_tables() -> None:
    with db_api.writer() as session:
        for table in reversed(models.Base.metadata.sorted_tables):
            session.execute(table.delete())


@pytest.fixture(params=BACKENDS)
def db_any(request, _server_databases, tmp_path, _sqlite_template) -> str:
    """The test runs once per backend: SQLite, MariaDB, PostgreSQL (all real)."""
    backend = request.param
    if backend == "sqlite":
        path = tmp_path / "magnum.sqlite"
        shutil.copy(_sqlite_template, path)
        url = f"sqlite:///{path}"
        _use(url)
    else:
        url = _backend_url(backend, _server_databases)
        _use(url)
        _empty_all_tables()
    yield url
    db_api.reset_engine()
