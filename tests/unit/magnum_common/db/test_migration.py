"""The Alembic history builds exactly the schema the models declare, on every backend."""

from __future__ import annotations

import alembic.autogenerate
import alembic.migration
import sqlalchemy as sa

from magnum_common.db import api, migration, models


def test_migrated_schema_matches_models(db_any):
    with api.get_engine().connect() as conn:
        context = alembic.migration.MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": False})
        diff = alembic.autogenerate.compare_metadata(context, models.Base.metadata)
    assert diff == []


def test_database_is_at_head(db_any):
    assert migration.version() == migration.head()


def test_every_table_and_index_exists(db_any):
    inspector = sa.inspect(api.get_engine())
    tables = set(inspector.get_table_names())
    assert set(models.Base.metadata.tables) <= tables
    cluster_indexes = {ix["name"] for ix in inspector.get_indexes("cluster")}
    assert {"ix_cluster_project_id", "ix_cluster_status", "ix_cluster_operation"} <= cluster_indexes
