"""What the sweeper needs beyond a reference, per orphan (issue 12: stacks as orphans).

A stack orphan names its stack by the driver's name for it and needs the driver that made
it and the time until which a create sent before the delete could still land.

Revision ID: 0006_orphan_detail
Revises: 0005_service_process
Create Date: 2026-12-01 19:10:00.000000
"""

from alembic import op
import sqlalchemy as sa


revision = '0006_orphan_detail'
down_revision = '0005_service_process'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('orphan') as batch:
        batch.add_column(sa.Column('detail', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('orphan') as batch:
        batch.drop_column('detail')
