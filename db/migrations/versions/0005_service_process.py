"""One row per conductor process, beside its service's row (issue 12, point 7).

Revision ID: 0005_service_process
Revises: 0004_effects_orphans
Create Date: 2026-12-01 16:15:00.000000
"""

from alembic import op
import sqlalchemy as sa


revision = '0005_service_process'
down_revision = '0004_effects_orphans'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('magnum_service_process',
    sa.Column('identity', sa.String(length=255), nullable=False),
    sa.Column('host', sa.String(length=255), nullable=False),
    sa.Column('binary', sa.String(length=255), nullable=False),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('identity', name='uniq_magnum_service_process0identity'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_magnum_service_process_host_binary', 'magnum_service_process',
                    ['host', 'binary'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_magnum_service_process_host_binary',
                  table_name='magnum_service_process')
    op.drop_table('magnum_service_process')
