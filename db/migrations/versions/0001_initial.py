"""Initial schema: every Magnum table, its indexes and the conductor lease columns.

Revision ID: 0001_initial
Revises:
Create Date: 2026-11-29 16:47:01.944561
"""

from alembic import op
import sqlalchemy as sa


revision = '0001_initial'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('cluster',
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('cluster_template_id', sa.String(length=255), nullable=True),
    sa.Column('keypair', sa.String(length=255), nullable=True),
    sa.Column('docker_volume_size', sa.Integer(), nullable=True),
    sa.Column('labels', sa.Text(), nullable=True),
    sa.Column('master_flavor_id', sa.String(length=255), nullable=True),
    sa.Column('flavor_id', sa.String(length=255), nullable=True),
    sa.Column('stack_id', sa.String(length=255), nullable=True),
    sa.Column('api_address', sa.String(length=255), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=True),
    sa.Column('status_reason', sa.Text(), nullable=True),
    sa.Column('health_status', sa.String(length=20), nullable=True),
    sa.Column('health_status_reason', sa.Text(), nullable=True),
    sa.Column('create_timeout', sa.Integer(), nullable=True),
    sa.Column('discovery_url', sa.String(length=255), nullable=True),
    sa.Column('trust_id', sa.String(length=255), nullable=True),
    sa.Column('trustee_username', sa.String(length=255), nullable=True),
    sa.Column('trustee_user_id', sa.String(length=255), nullable=True),
    sa.Column('trustee_password', sa.String(length=512), nullable=True),
    sa.Column('coe_version', sa.String(length=255), nullable=True),
    sa.Column('container_version', sa.String(length=255), nullable=True),
    sa.Column('ca_cert_ref', sa.String(length=512), nullable=True),
    sa.Column('magnum_cert_ref', sa.String(length=512), nullable=True),
    sa.Column('etcd_ca_cert_ref', sa.String(length=512), nullable=True),
    sa.Column('front_proxy_ca_cert_ref', sa.String(length=512), nullable=True),
    sa.Column('fixed_network', sa.String(length=255), nullable=True),
    sa.Column('fixed_subnet', sa.String(length=255), nullable=True),
    sa.Column('floating_ip_enabled', sa.Boolean(), nullable=True),
    sa.Column('master_lb_enabled', sa.Boolean(), nullable=True),
    sa.Column('lock_owner', sa.String(length=255), nullable=True),
    sa.Column('lock_expires_at', sa.DateTime(), nullable=True),
    sa.Column('operation', sa.String(length=36), nullable=True),
    sa.Column('operation_args', sa.Text(), nullable=True),
    sa.Column('operation_at', sa.DateTime(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_bay0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_cluster_cluster_template_id', 'cluster', ['cluster_template_id'], unique=False)
    op.create_index('ix_cluster_name', 'cluster', ['name'], unique=False)
    op.create_index('ix_cluster_operation', 'cluster', ['operation'], unique=False)
    op.create_index('ix_cluster_project_id', 'cluster', ['project_id'], unique=False)
    op.create_index('ix_cluster_stack_id', 'cluster', ['stack_id'], unique=False)
    op.create_index('ix_cluster_status', 'cluster', ['status'], unique=False)

    op.create_table('cluster_template',
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('image_id', sa.String(length=255), nullable=True),
    sa.Column('flavor_id', sa.String(length=255), nullable=True),
    sa.Column('master_flavor_id', sa.String(length=255), nullable=True),
    sa.Column('keypair_id', sa.String(length=255), nullable=True),
    sa.Column('external_network_id', sa.String(length=255), nullable=True),
    sa.Column('fixed_network', sa.String(length=255), nullable=True),
    sa.Column('fixed_subnet', sa.String(length=255), nullable=True),
    sa.Column('network_driver', sa.String(length=255), nullable=True),
    sa.Column('volume_driver', sa.String(length=255), nullable=True),
    sa.Column('dns_nameserver', sa.String(length=255), nullable=True),
    sa.Column('apiserver_port', sa.Integer(), nullable=True),
    sa.Column('docker_volume_size', sa.Integer(), nullable=True),
    sa.Column('docker_storage_driver', sa.String(length=255), nullable=True),
    sa.Column('cluster_distro', sa.String(length=255), nullable=True),
    sa.Column('coe', sa.String(length=255), nullable=True),
    sa.Column('http_proxy', sa.String(length=255), nullable=True),
    sa.Column('https_proxy', sa.String(length=255), nullable=True),
    sa.Column('no_proxy', sa.String(length=255), nullable=True),
    sa.Column('registry_enabled', sa.Boolean(), nullable=True),
    sa.Column('labels', sa.Text(), nullable=True),
    sa.Column('tls_disabled', sa.Boolean(), nullable=True),
    sa.Column('public', sa.Boolean(), nullable=True),
    sa.Column('server_type', sa.String(length=255), nullable=True),
    sa.Column('insecure_registry', sa.String(length=255), nullable=True),
    sa.Column('master_lb_enabled', sa.Boolean(), nullable=True),
    sa.Column('floating_ip_enabled', sa.Boolean(), nullable=True),
    sa.Column('hidden', sa.Boolean(), nullable=True),
    sa.Column('tags', sa.String(length=255), nullable=True),
    sa.Column('driver', sa.String(length=255), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_baymodel0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_cluster_template_name', 'cluster_template', ['name'], unique=False)
    op.create_index('ix_cluster_template_project_id', 'cluster_template', ['project_id'], unique=False)
    op.create_index('ix_cluster_template_public', 'cluster_template', ['public'], unique=False)

    op.create_table('federation',
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('name', sa.String(length=255), nullable=True),
    sa.Column('hostcluster_id', sa.String(length=255), nullable=True),
    sa.Column('member_ids', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=True),
    sa.Column('status_reason', sa.Text(), nullable=True),
    sa.Column('properties', sa.Text(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_federation0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_federation_project_id', 'federation', ['project_id'], unique=False)

    op.create_table('magnum_service',
    sa.Column('host', sa.String(length=255), nullable=True),
    sa.Column('binary', sa.String(length=255), nullable=True),
    sa.Column('disabled', sa.Boolean(), nullable=True),
    sa.Column('disabled_reason', sa.String(length=255), nullable=True),
    sa.Column('last_seen_up', sa.DateTime(), nullable=True),
    sa.Column('forced_down', sa.Boolean(), nullable=True),
    sa.Column('report_count', sa.Integer(), nullable=False),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('host', 'binary', name='uniq_magnum_service0host0binary'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('nodegroup',
    sa.Column('uuid', sa.String(length=36), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('cluster_id', sa.String(length=255), nullable=False),
    sa.Column('project_id', sa.String(length=255), nullable=False),
    sa.Column('docker_volume_size', sa.Integer(), nullable=True),
    sa.Column('labels', sa.Text(), nullable=True),
    sa.Column('flavor_id', sa.String(length=255), nullable=True),
    sa.Column('image_id', sa.String(length=255), nullable=True),
    sa.Column('node_addresses', sa.Text(), nullable=True),
    sa.Column('node_count', sa.Integer(), nullable=True),
    sa.Column('max_node_count', sa.Integer(), nullable=True),
    sa.Column('min_node_count', sa.Integer(), nullable=True),
    sa.Column('role', sa.String(length=255), nullable=True),
    sa.Column('is_default', sa.Boolean(), nullable=True),
    sa.Column('stack_id', sa.String(length=255), nullable=True),
    sa.Column('status', sa.String(length=20), nullable=True),
    sa.Column('status_reason', sa.Text(), nullable=True),
    sa.Column('version', sa.String(length=20), nullable=True),
    sa.Column('node_labels', sa.Text(), nullable=True),
    sa.Column('node_taints', sa.Text(), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('cluster_id', 'name', name='uniq_nodegroup0cluster_id0name'),
    sa.UniqueConstraint('uuid', name='uniq_nodegroup0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_nodegroup_project_id', 'nodegroup', ['project_id'], unique=False)

    op.create_table('quotas',
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('resource', sa.String(length=255), nullable=True),
    sa.Column('hard_limit', sa.Integer(), nullable=False),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('project_id', 'resource', name='uniq_quotas0project_id0resource'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_table('x509keypair',
    sa.Column('uuid', sa.String(length=36), nullable=True),
    sa.Column('certificate', sa.Text(), nullable=True),
    sa.Column('private_key', sa.Text(), nullable=True),
    sa.Column('private_key_passphrase', sa.Text(), nullable=True),
    sa.Column('intermediates', sa.Text(), nullable=True),
    sa.Column('project_id', sa.String(length=255), nullable=True),
    sa.Column('user_id', sa.String(length=255), nullable=True),
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('uuid', name='uniq_x509keypair0uuid'),
    mysql_charset='utf8mb4',
    mysql_engine='InnoDB'
    )
    op.create_index('ix_x509keypair_project_id', 'x509keypair', ['project_id'], unique=False)

