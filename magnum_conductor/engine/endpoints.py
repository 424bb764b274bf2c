"""The RPC endpoint: one method per message magnum_common/conductor_api.py sends.

Casts carry only the cluster UUID; the operation and its arguments are read from the row
the API wrote before casting. Calls return a value or raise a magnum_common.exception that
oslo.messaging re-raises, with its HTTP code, in the API.
"""

from __future__ import annotations

import oslo_messaging as messaging
from oslo_log import log as logging

from magnum_common.context import RequestContext
from magnum_conductor.engine.executor import Executor
from magnum_conductor.engine.handlers import certificates

LOG = logging.getLogger(__name__)


class ConductorEndpoint:
    target = messaging.Target(version="1.0")

    def __init__(self, executor: Executor) -> None:
        self.executor = executor

    def _cast(self, cluster_uuid: str) -> None:
        self.executor.run_recorded(cluster_uuid)

    # --- casts --------------------------------------------------------------------------
    def cluster_create(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def cluster_update(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def cluster_resize(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def cluster_delete(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def nodegroup_create(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def nodegroup_update(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def nodegroup_delete(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    def credential_rotate(self, context: RequestContext, cluster_uuid: str) -> None:
        self._cast(cluster_uuid)

    # --- calls ---------------------------------------------------------------------------
    def cluster_upgrade(self, context: RequestContext, cluster_uuid: str) -> None:
        self.executor.run_recorded(cluster_uuid, raise_errors=True)

    def rotate_ca_certificate(self, context: RequestContext, cluster_uuid: str) -> None:
        self.executor.run_recorded(cluster_uuid, raise_errors=True)

    def sign_certificate(self, context: RequestContext, cluster_uuid: str, csr: str,
                         ca_cert_type: str | None = None) -> str:
        return certificates.sign_certificate(context, cluster_uuid, csr, ca_cert_type)

    def get_ca_certificate(self, context: RequestContext, cluster_uuid: str,
                           ca_cert_type: str | None = None) -> str:
        return certificates.get_ca_certificate(context, cluster_uuid, ca_cert_type)
