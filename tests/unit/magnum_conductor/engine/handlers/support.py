"""What the handler tests share: a created cluster, an operation recorded on it as the API
records one, and a conductor running it (SQLite, real leases, the database certificate
store). The cluster holds no trust and the records no requester, so a handler that needs
an identity fails at its ``auth`` step, before any request could leave for Keystone or
Heat: what it wrote up to there, and how its failure is recorded, is the behaviour tested;
the requests themselves are tested against the local cloud (tests/localcloud/conductor)."""

from __future__ import annotations

from typing import Any

from oslo_config import cfg

from magnum_common import crypto, states, utils
from magnum_common.db.clusters import clusters
from magnum_common.db.operations import operations as records
from magnum_conductor.engine.executor import Executor
from tests.unit.magnum_common.db.support import ALICE, make_cluster

CONF = cfg.CONF


def use_database_certificates() -> None:
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    CONF.set_override("cert_manager_type", "x509keypair", "certificates")


def created(name: str = "c1", workers: int = 2, **values: Any) -> Any:
    """A cluster whose create completed: stable, nothing recorded on it."""
    row = make_cluster(ALICE, name, workers)
    records.finish(row.operation_args["operation_id"], states.OPERATION_SUCCEEDED, "created")
    clusters.update(None, row.uuid, {"status": states.CREATE_COMPLETE,
                                     "status_reason": "Stack CREATE completed",
                                     "operation": None, "operation_args": {}, **values})
    return clusters.get_by_uuid(None, row.uuid)


def record(uuid: str, operation: str, args: dict[str, Any], nodegroup: str | None = None,
           status: str = states.UPDATE_IN_PROGRESS) -> str:
    """Record ``operation`` as accepted, the cluster in ``status``; the record's UUID."""
    cluster = clusters.get_by_uuid(None, uuid)
    record_uuid = utils.generate_uuid()
    recorded = {**args, "operation_id": record_uuid, "previous_status": cluster.status,
                "previous_reason": cluster.status_reason,
                "previous_updated_at": cluster.updated_at.isoformat()
                if cluster.updated_at else None}
    assert clusters.record_operation(None, uuid, operation, recorded,
                                     {"status": status, "status_reason": "accepted"})
    records.add(None, uuid, operation, args, nodegroup, uuid=record_uuid)
    return record_uuid


def run(uuid: str) -> Any:
    """A conductor runs the recorded operation; its error propagates."""
    return Executor("cond-a").run_recorded(uuid, wait=0, raise_errors=True)
