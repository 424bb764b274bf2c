"""Pieces shared by magnum-api and magnum-conductor: config, context, errors, DB, RPC client.

oslo.messaging imports oslo.service, whose default backend is eventlet; every Magnum
process runs on plain threads (threading RPC executor, gunicorn gthread workers), so the
threading backend is selected here, before anything can import oslo.messaging.

That backend imports futurist, which imports eventlet merely because it is installed (a
dependency of oslo.service): the import prints an ``EventletDeprecationWarning`` block at
every start and loads a green-thread runtime no Magnum process uses. A ``None`` entry in
``sys.modules`` makes such optional imports fail as if eventlet were absent.
"""

import sys

if "eventlet" not in sys.modules:
    sys.modules["eventlet"] = None

from oslo_service import backend as _service_backend

_service_backend.register_backend_default_hook(lambda: _service_backend.BackendType.THREADING)
