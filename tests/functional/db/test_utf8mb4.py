"""4-byte UTF-8 on MariaDB: connections speak utf8mb4 whatever the URL asks, and the
migration moves tables created in the 3-byte utf8 (upstream's databases) to utf8mb4."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from magnum_common.db import api, migration
from magnum_common.db.cluster_templates import cluster_templates
from tests.conftest import MYSQL_SERVER, _drop_database, _server_database, _use

EMOJI = "rocket-\U0001F680"


@pytest.fixture
def scratch_mysql():
    name = "magnum_test_utf8mb4"
    url = _server_database(MYSQL_SERVER, name)
    yield url
    api.reset_engine()
    _drop_database(MYSQL_SERVER, name)


@pytest.mark.parametrize("query", ["", "?charset=utf8", "?charset=utf8mb3"])
def test_connections_are_utf8mb4(scratch_mysql, query):
    _use(scratch_mysql + query)
    with api.get_engine().connect() as conn:
        charset = conn.execute(sa.text("SELECT @@character_set_connection")).scalar()
    assert charset == "utf8mb4"


def _charsets(conn) -> set[str]:
    return set(conn.execute(sa.text(
        "SELECT c.CHARACTER_SET_NAME FROM information_schema.TABLES t "
        "JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY c "
        "ON c.COLLATION_NAME = t.TABLE_COLLATION WHERE t.TABLE_SCHEMA = DATABASE()")
    ).scalars())


def test_migration_moves_utf8_tables_to_utf8mb4(scratch_mysql):
    _use(scratch_mysql)
    migration.upgrade("0001_initial")
    with api.get_engine().begin() as conn:
        tables = sa.inspect(conn).get_table_names()
        for table in tables:
            conn.execute(sa.text(f"ALTER TABLE `{table}` CONVERT TO CHARACTER SET utf8mb3"))
        assert _charsets(conn) == {"utf8mb3"}
    migration.upgrade()
    with api.get_engine().connect() as conn:
        assert _charsets(conn) == {"utf8mb4"}
    row = cluster_templates.create(None, {"name": EMOJI, "coe": "kubernetes",
                                          "labels": {"k": EMOJI}})
    assert cluster_templates.get_by_uuid(None, row.uuid).name == EMOJI
    assert migration.version() == migration.head()
