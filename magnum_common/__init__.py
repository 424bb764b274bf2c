"""Pieces shared by magnum-api and magnum-conductor: config, context, errors, DB, RPC client.

oslo.messaging imports oslo.service, whose default backend is eventlet; every Magnum
process runs on plain threads (threading RPC executor, gunicorn gthread workers), so the
threading backend is selected here, before anything can import oslo.messaging.
"""

from oslo_service import backend as _service_backend

_service_backend.register_backend_default_hook(lambda: _service_backend.BackendType.THREADING)
