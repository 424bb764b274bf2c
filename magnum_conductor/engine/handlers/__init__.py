"""Every operation the API can record, and the handler that carries it out: one table.

The API writes an operation's name (``magnum_common.states.OP_*``) on the cluster row; the
executor looks it up in ``OPERATIONS``. A new operation is one ``Operation`` in a handler
module and one line here.
"""

from __future__ import annotations

from magnum_conductor.engine.handlers import certificates, cluster, nodegroup
from magnum_conductor.engine.operations import Operation

OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    cluster.CREATE, cluster.UPDATE, cluster.RESIZE, cluster.UPGRADE, cluster.DELETE,
    nodegroup.CREATE, nodegroup.UPDATE, nodegroup.DELETE,
    certificates.ROTATE_CA, certificates.ROTATE_CREDENTIAL,
)}
