"""Schema migrations through Alembic, driven by the configured ``[database] connection``."""

from __future__ import annotations

import os

import alembic.command
import alembic.config
import alembic.migration
import alembic.script

from magnum_common.db import api

MIGRATIONS_DIR = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    "db", "migrations",
)


def _config(connection=None) -> alembic.config.Config:
    cfg = alembic.config.Config()
    cfg.set_main_option("script_location", MIGRATIONS_DIR)
    cfg.attributes["connection"] = connection
    return cfg


def _run(command, *args, **kwargs) -> None:
    with api.get_engine().begin() as connection:
        command(_config(connection), *args, **kwargs)


def upgrade(revision: str = "head") -> None:
    _run(alembic.command.upgrade, revision or "head")


def stamp(revision: str) -> None:
    _run(alembic.command.stamp, revision)


def revision(message: str | None = None, autogenerate: bool = False) -> None:
    if autogenerate:
        _run(alembic.command.revision, message=message, autogenerate=True)
    else:
        alembic.command.revision(_config(), message=message)


def version() -> str | None:
    """The database's current revision, or None for an unversioned database."""
    with api.get_engine().connect() as connection:
        return alembic.migration.MigrationContext.configure(connection).get_current_revision()


def head() -> str:
    return alembic.script.ScriptDirectory.from_config(_config()).get_current_head()


def known_revision(rev: str) -> bool:
    script = alembic.script.ScriptDirectory.from_config(_config())
    if rev in ("head", "heads", "base"):
        return True
    try:
        return script.get_revision(rev) is not None
    except Exception:
        return False
