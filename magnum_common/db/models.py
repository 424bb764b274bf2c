"""SQLAlchemy models of every Magnum table.

The columns follow upstream Magnum's schema so operators recognise it; additions are the
secondary indexes the queries need and the cluster columns that make the conductor's work
safe: a lease (``lock_owner``, ``lock_expires_at``) and the recorded intent of the pending
operation (``operation``, ``operation_args``, ``operation_at``) that a conductor replays if the
RPC cast was lost or its conductor died.
"""

from __future__ import annotations

import datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from magnum_common.db.types import JSONEncodedDict, JSONEncodedList, NullableJSONEncodedDict


def utcnow() -> datetime.datetime:
    """Naive UTC now: all timestamps are stored without a zone and read back as UTC."""
    return datetime.datetime.now(datetime.UTC).replace(tzinfo=None)


TABLE_ARGS = {"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"}


class Base(DeclarativeBase):
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime.datetime | None] = mapped_column(DateTime, onupdate=utcnow)

    def as_dict(self) -> dict:
        return {c.name: getattr(self, c.key) for c in self.__table__.columns}

    def __repr__(self) -> str:
        ident = getattr(self, "uuid", None) or self.id
        return f"<{type(self).__name__} {ident}>"


class Cluster(Base):
    __tablename__ = "cluster"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_bay0uuid"),
        Index("ix_cluster_project_id", "project_id"),
        Index("ix_cluster_name", "name"),
        Index("ix_cluster_status", "status"),
        Index("ix_cluster_cluster_template_id", "cluster_template_id"),
        Index("ix_cluster_stack_id", "stack_id"),
        Index("ix_cluster_operation", "operation"),
        TABLE_ARGS,
    )

    uuid: Mapped[str | None] = mapped_column(String(36))
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(255))
    cluster_template_id: Mapped[str | None] = mapped_column(String(255))
    keypair: Mapped[str | None] = mapped_column(String(255))
    docker_volume_size: Mapped[int | None] = mapped_column(Integer)
    labels: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    master_flavor_id: Mapped[str | None] = mapped_column(String(255))
    flavor_id: Mapped[str | None] = mapped_column(String(255))
    stack_id: Mapped[str | None] = mapped_column(String(255))
    api_address: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(20))
    status_reason: Mapped[str | None] = mapped_column(Text)
    health_status: Mapped[str | None] = mapped_column(String(20))
    health_status_reason: Mapped[dict | None] = mapped_column(NullableJSONEncodedDict)
    create_timeout: Mapped[int | None] = mapped_column(Integer)
    discovery_url: Mapped[str | None] = mapped_column(String(255))
    trust_id: Mapped[str | None] = mapped_column(String(255))
    trustee_username: Mapped[str | None] = mapped_column(String(255))
    trustee_user_id: Mapped[str | None] = mapped_column(String(255))
    # Stored encrypted (see magnum_common.crypto), never in plain text.
    trustee_password: Mapped[str | None] = mapped_column(String(512))
    coe_version: Mapped[str | None] = mapped_column(String(255))
    container_version: Mapped[str | None] = mapped_column(String(255))
    ca_cert_ref: Mapped[str | None] = mapped_column(String(512))
    magnum_cert_ref: Mapped[str | None] = mapped_column(String(512))
    etcd_ca_cert_ref: Mapped[str | None] = mapped_column(String(512))
    front_proxy_ca_cert_ref: Mapped[str | None] = mapped_column(String(512))
    fixed_network: Mapped[str | None] = mapped_column(String(255))
    fixed_subnet: Mapped[str | None] = mapped_column(String(255))
    floating_ip_enabled: Mapped[bool | None] = mapped_column(Boolean, default=True)
    master_lb_enabled: Mapped[bool | None] = mapped_column(Boolean, default=False)
    # Conductor lease: at most one conductor works on a cluster at a time.
    lock_owner: Mapped[str | None] = mapped_column(String(255))
    lock_expires_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    # Durable intent: what the API accepted and the conductor still has to start.
    operation: Mapped[str | None] = mapped_column(String(36))
    operation_args: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    operation_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)


class ClusterTemplate(Base):
    __tablename__ = "cluster_template"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_baymodel0uuid"),
        Index("ix_cluster_template_project_id", "project_id"),
        Index("ix_cluster_template_name", "name"),
        Index("ix_cluster_template_public", "public"),
        TABLE_ARGS,
    )

    uuid: Mapped[str | None] = mapped_column(String(36))
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(255))
    image_id: Mapped[str | None] = mapped_column(String(255))
    flavor_id: Mapped[str | None] = mapped_column(String(255))
    master_flavor_id: Mapped[str | None] = mapped_column(String(255))
    keypair_id: Mapped[str | None] = mapped_column(String(255))
    external_network_id: Mapped[str | None] = mapped_column(String(255))
    fixed_network: Mapped[str | None] = mapped_column(String(255))
    fixed_subnet: Mapped[str | None] = mapped_column(String(255))
    network_driver: Mapped[str | None] = mapped_column(String(255))
    volume_driver: Mapped[str | None] = mapped_column(String(255))
    dns_nameserver: Mapped[str | None] = mapped_column(String(255))
    apiserver_port: Mapped[int | None] = mapped_column(Integer)
    docker_volume_size: Mapped[int | None] = mapped_column(Integer)
    docker_storage_driver: Mapped[str | None] = mapped_column(String(255))
    cluster_distro: Mapped[str | None] = mapped_column(String(255))
    coe: Mapped[str | None] = mapped_column(String(255))
    http_proxy: Mapped[str | None] = mapped_column(String(255))
    https_proxy: Mapped[str | None] = mapped_column(String(255))
    no_proxy: Mapped[str | None] = mapped_column(String(255))
    registry_enabled: Mapped[bool | None] = mapped_column(Boolean, default=False)
    labels: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    tls_disabled: Mapped[bool | None] = mapped_column(Boolean, default=False)
    public: Mapped[bool | None] = mapped_column(Boolean, default=False)
    server_type: Mapped[str | None] = mapped_column(String(255))
    insecure_registry: Mapped[str | None] = mapped_column(String(255))
    master_lb_enabled: Mapped[bool | None] = mapped_column(Boolean, default=False)
    floating_ip_enabled: Mapped[bool | None] = mapped_column(Boolean, default=True)
    hidden: Mapped[bool | None] = mapped_column(Boolean, default=False)
    tags: Mapped[str | None] = mapped_column(String(255))
    driver: Mapped[str | None] = mapped_column(String(255))


class NodeGroup(Base):
    __tablename__ = "nodegroup"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_nodegroup0uuid"),
        UniqueConstraint("cluster_id", "name", name="uniq_nodegroup0cluster_id0name"),
        Index("ix_nodegroup_project_id", "project_id"),
        TABLE_ARGS,
    )

    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    cluster_id: Mapped[str] = mapped_column(String(255), nullable=False)
    project_id: Mapped[str] = mapped_column(String(255), nullable=False)
    docker_volume_size: Mapped[int | None] = mapped_column(Integer)
    labels: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    flavor_id: Mapped[str | None] = mapped_column(String(255))
    image_id: Mapped[str | None] = mapped_column(String(255))
    node_addresses: Mapped[list | None] = mapped_column(JSONEncodedList)
    node_count: Mapped[int | None] = mapped_column(Integer)
    max_node_count: Mapped[int | None] = mapped_column(Integer)
    min_node_count: Mapped[int | None] = mapped_column(Integer)
    role: Mapped[str | None] = mapped_column(String(255))
    is_default: Mapped[bool | None] = mapped_column(Boolean, default=False)
    stack_id: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str | None] = mapped_column(String(20))
    status_reason: Mapped[str | None] = mapped_column(Text)
    version: Mapped[str | None] = mapped_column(String(20))
    node_labels: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    node_taints: Mapped[list | None] = mapped_column(JSONEncodedList)


class X509KeyPair(Base):
    __tablename__ = "x509keypair"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_x509keypair0uuid"),
        Index("ix_x509keypair_project_id", "project_id"),
        TABLE_ARGS,
    )

    uuid: Mapped[str | None] = mapped_column(String(36))
    certificate: Mapped[str | None] = mapped_column(Text)
    private_key: Mapped[str | None] = mapped_column(Text)
    private_key_passphrase: Mapped[str | None] = mapped_column(Text)
    intermediates: Mapped[str | None] = mapped_column(Text)
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))


class MagnumService(Base):
    __tablename__ = "magnum_service"
    __table_args__ = (
        UniqueConstraint("host", "binary", name="uniq_magnum_service0host0binary"),
        TABLE_ARGS,
    )

    host: Mapped[str | None] = mapped_column(String(255))
    binary: Mapped[str | None] = mapped_column(String(255))
    disabled: Mapped[bool | None] = mapped_column(Boolean, default=False)
    disabled_reason: Mapped[str | None] = mapped_column(String(255))
    last_seen_up: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    forced_down: Mapped[bool | None] = mapped_column(Boolean, default=False)
    report_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)


class MagnumServiceProcess(Base):
    """One running process of a service: its identity (host, worker, a random part) and
    heartbeat. The status sync's hash ring is made of these, so two processes that share a
    host name are two members (the service row, one per host, says whether it is enabled)."""

    __tablename__ = "magnum_service_process"
    __table_args__ = (
        UniqueConstraint("identity", name="uniq_magnum_service_process0identity"),
        Index("ix_magnum_service_process_host_binary", "host", "binary"),
        TABLE_ARGS,
    )

    identity: Mapped[str] = mapped_column(String(255), nullable=False)
    host: Mapped[str] = mapped_column(String(255), nullable=False)
    binary: Mapped[str] = mapped_column(String(255), nullable=False)
    last_seen_up: Mapped[datetime.datetime | None] = mapped_column(DateTime)


class Quota(Base):
    __tablename__ = "quotas"
    __table_args__ = (
        UniqueConstraint("project_id", "resource", name="uniq_quotas0project_id0resource"),
        TABLE_ARGS,
    )

    project_id: Mapped[str | None] = mapped_column(String(255))
    resource: Mapped[str | None] = mapped_column(String(255))
    hard_limit: Mapped[int] = mapped_column(Integer, nullable=False)


class Federation(Base):
    __tablename__ = "federation"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_federation0uuid"),
        Index("ix_federation_project_id", "project_id"),
        TABLE_ARGS,
    )

    uuid: Mapped[str | None] = mapped_column(String(36))
    project_id: Mapped[str | None] = mapped_column(String(255))
    name: Mapped[str | None] = mapped_column(String(255))
    hostcluster_id: Mapped[str | None] = mapped_column(String(255))
    member_ids: Mapped[list | None] = mapped_column(JSONEncodedList)
    status: Mapped[str | None] = mapped_column(String(20))
    status_reason: Mapped[str | None] = mapped_column(Text)
    properties: Mapped[dict | None] = mapped_column(JSONEncodedDict)


class ClusterOperation(Base):
    """One accepted request on a cluster: its arguments, who asked, and what became of it."""

    __tablename__ = "cluster_operation"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_cluster_operation0uuid"),
        Index("ix_cluster_operation_cluster_id_state", "cluster_id", "state"),
        Index("ix_cluster_operation_project_id", "project_id"),
        TABLE_ARGS,
    )

    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    cluster_id: Mapped[str] = mapped_column(String(36), nullable=False)
    nodegroup_id: Mapped[str | None] = mapped_column(String(36))
    kind: Mapped[str] = mapped_column(String(36), nullable=False)
    arguments: Mapped[dict | None] = mapped_column(JSONEncodedDict)
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    request_id: Mapped[str | None] = mapped_column(String(255))
    state: Mapped[str] = mapped_column(String(20), nullable=False)
    accepted_at: Mapped[datetime.datetime] = mapped_column(DateTime, nullable=False)
    started_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    finished_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    result_reason: Mapped[str | None] = mapped_column(Text)
    progress: Mapped[str | None] = mapped_column(Text)
    #: External side effects of the operation, by name: recorded pending before the call,
    #: done after it, with what recovery needs to finish or undo them.
    effects: Mapped[dict | None] = mapped_column(JSONEncodedDict)


class Orphan(Base):
    """Something a delete could not remove (a trust, a trustee user, a certificate bundle)
    after its retries, or a stack whose create may still land after the delete: the
    conductor's sweeper keeps trying, ``magnum-status`` reports it."""

    __tablename__ = "orphan"
    __table_args__ = (
        UniqueConstraint("uuid", name="uniq_orphan0uuid"),
        Index("ix_orphan_next_attempt_at", "next_attempt_at"),
        TABLE_ARGS,
    )

    uuid: Mapped[str] = mapped_column(String(36), nullable=False)
    kind: Mapped[str] = mapped_column(String(36), nullable=False)
    ref: Mapped[str] = mapped_column(String(255), nullable=False)
    cluster_id: Mapped[str | None] = mapped_column(String(36))
    project_id: Mapped[str | None] = mapped_column(String(255))
    user_id: Mapped[str | None] = mapped_column(String(255))
    attempts: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    next_attempt_at: Mapped[datetime.datetime | None] = mapped_column(DateTime)
    #: What the removal needs beyond ``ref`` (a stack: its driver, the time until which
    #: a create sent before the delete could still land).
    detail: Mapped[dict | None] = mapped_column(JSONEncodedDict)
