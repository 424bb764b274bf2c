"""The operation record: one row per accepted request on a cluster (queue and history).

Revision ID: 0003_cluster_operation
Revises: 0002_utf8mb4
Create Date: 2026-12-01 12:50:00.000000
"""

from alembic import op
import sqlalchemy as sa


revision = '0003_cluster_operation'
down_revision = '0002_utf8mb4'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cluster_operation',
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('cluster_id', sa.String(length=36), nullable=False),
    sa.Column('nodegroup_id', sa.String(length=36), nullable=True),
    sa.Column('kind', sa.String(length=36), nullable=False),
    sa.Column('arguments', sa.Text(), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('request_id', sa.String(length=255), nullable=True),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('accepted_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('result_reason', sa.Text(), nullable=True),
    sa.Column('progress', sa.Text(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_cluster_operation0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_cluster_operation_cluster_id_state', 'cluster_operation',
                    ['cluster_id', 'state'], unique=False)
    op.create_index('ix_cluster_operation_project_id', 'cluster_operation', ['project_id'],
                    unique=False)


def downgrade() -> None:
    op.drop_index('ix_cluster_operation_project_id', table_name='cluster_operation')
    op.drop_index('ix_cluster_operation_cluster_id_state', table_name='cluster_operation')
    op.drop_table('cluster_operation')
