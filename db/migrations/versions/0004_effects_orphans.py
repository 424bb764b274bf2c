"""Effects journal on operation records and the orphan table (issue 12, point 4).

Revision ID: 0004_effects_orphans
Revises: 0003_cluster_operation
Create Date: 2026-12-01 16:00:00.000000
"""

from alembic import op
import sqlalchemy as sa


revision = '0004_effects_orphans'
down_revision = '0003_cluster_operation'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('cluster_operation') as batch:
        batch.add_column(sa.Column('effects', sa.Text(), nullable=True))
    op.create_table('orphan',
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=36), nullable=False),
    sa.Column('ref', sa.String(length=255), nullable=False),
    sa.Column('cluster_id', sa.String(length=36), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('next_attempt_at', sa.DateTime(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_orphan0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_orphan_next_attempt_at', 'orphan', ['next_attempt_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_orphan_next_attempt_at', table_name='orphan')
    op.drop_table('orphan')
    with op.batch_alter_table('cluster_operation') as batch:
        batch.drop_column('effects')
