"""magnum-conductor: executes recorded cluster operations (Heat, trusts, certificates).

oslo.messaging imports oslo.service, whose default backend is eventlet; the conductor runs
on plain threads (threading RPC executor), so the threading backend is selected before
anything imports oslo.messaging.
"""

from oslo_service import backend as _service_backend

_service_backend.register_backend_default_hook(lambda: _service_backend.BackendType.THREADING)
