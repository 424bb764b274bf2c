"""``magnum-db-manage``: create and migrate the schema (Alembic), purge old rows, and move
the stored secrets to the current ``[crypto]`` key (``reencrypt``)."""

from __future__ import annotations

import sys

from oslo_config import cfg
from oslo_db import exception as db_exc
from sqlalchemy import exc as sa_exc

from magnum_common import config
from magnum_common.db import migration, rotation

CONF = cfg.CONF


def do_version() -> None:
    print(migration.version() or "None")


def do_upgrade() -> None:
    migration.upgrade(CONF.command.revision)


def do_stamp() -> None:
    migration.stamp(CONF.command.revision)


def do_revision() -> None:
    migration.revision(message=CONF.command.message, autogenerate=CONF.command.autogenerate)


def do_reencrypt() -> None:
    print(f"{rotation.reencrypt_all()} secrets re-encrypted with the current [crypto] key")


def add_command_parsers(subparsers) -> None:
    parser = subparsers.add_parser("version", help="Print the database's current revision.")
    parser.set_defaults(func=do_version)

    parser = subparsers.add_parser("upgrade", help="Upgrade the schema (default: to head).")
    parser.add_argument("revision", nargs="?", default="head")
    parser.set_defaults(func=do_upgrade)

    parser = subparsers.add_parser("stamp", help="Record REVISION without running migrations.")
    parser.add_argument("revision")
    parser.set_defaults(func=do_stamp)

    parser = subparsers.add_parser("revision", help="Create a new migration script.")
    parser.add_argument("-m", "--message")
    parser.add_argument("--autogenerate", action="store_true")
    parser.set_defaults(func=do_revision)

    parser = subparsers.add_parser(
        "reencrypt", help="Re-encrypt every stored secret with [crypto] encryption_key (after "
        "a key rotation, before the old key leaves previous_encryption_keys).")
    parser.set_defaults(func=do_reencrypt)


command_opt = cfg.SubCommandOpt(
    "command", title="Command", help="Available commands", handler=add_command_parsers
)


def _fail(message: str) -> int:
    print(f"magnum-db-manage: error: {message}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    CONF.register_cli_opt(command_opt)
    config.parse_args(sys.argv[1:] if argv is None else argv)
    # A management command should fail at once on an unreachable database, not retry.
    CONF.set_override("max_retries", 0, "database")
    revision = getattr(CONF.command, "revision", None)
    if CONF.command.name in ("upgrade", "stamp") and not migration.known_revision(revision):
        return _fail(f"unknown revision {revision!r}")
    try:
        CONF.command.func()
    except (db_exc.DBConnectionError, sa_exc.OperationalError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        return _fail(f"cannot reach the database {CONF.database.connection!r}: {reason}")
    except db_exc.DBError as exc:
        return _fail(str(exc).splitlines()[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
