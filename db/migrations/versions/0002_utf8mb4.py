"""MariaDB / MySQL: every table and the database default in utf8mb4.

Databases first created by upstream Magnum (or by a MySQL default of the time) hold
their tables in the 3-byte ``utf8``, which cannot store 4-byte characters such as emoji.
Tables already in utf8mb4 are left alone. Other backends store UTF-8 already. There is no
downgrade: converting back would destroy every 4-byte character stored since.

Revision ID: 0002_utf8mb4
Revises: 0001_initial
Create Date: 2026-12-01 10:00:00.000000
"""

from alembic import op
import sqlalchemy as sa


revision = '0002_utf8mb4'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != 'mysql':
        return
    database = bind.execute(sa.text('SELECT DATABASE()')).scalar()
    op.execute(f'ALTER DATABASE `{database}` CHARACTER SET utf8mb4')
    rows = bind.execute(sa.text(
        "SELECT t.TABLE_NAME FROM information_schema.TABLES t "
        "JOIN information_schema.COLLATION_CHARACTER_SET_APPLICABILITY c "
        "ON c.COLLATION_NAME = t.TABLE_COLLATION "
        "WHERE t.TABLE_SCHEMA = :db AND t.TABLE_TYPE = 'BASE TABLE' "
        "AND c.CHARACTER_SET_NAME <> 'utf8mb4'"), {'db': database})
    for (table,) in rows.fetchall():
        op.execute(f'ALTER TABLE `{table}` CONVERT TO CHARACTER SET utf8mb4')


def downgrade() -> None:
    pass
