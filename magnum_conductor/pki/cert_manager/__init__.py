"""Certificate storage backends, chosen by ``[certificates] cert_manager_type``.

Backends (entry points ``magnum.cert_manager.backend``): ``barbican`` (default; secrets and a
certificate container owned by Magnum's service user), ``x509keypair`` (the database, private
keys and passphrases encrypted with ``magnum_common.crypto``) and ``local`` (files under
``[certificates] storage_path``, for single-host testing).

Public API: ``get_backend(name=None) -> CertManager`` (one instance per backend and process),
``Cert``, ``CertManager`` (see ``base``). The options are in magnum_conductor/conf.py.
"""

from __future__ import annotations

import threading

from stevedore import driver

from magnum_common import exception
from magnum_conductor.conf import CONF
from magnum_conductor.pki.cert_manager.base import Cert, CertManager

__all__ = ["Cert", "CertManager", "get_backend"]

GROUP = "certificates"
NAMESPACE = "magnum.cert_manager.backend"

_lock = threading.Lock()
_backends: dict[str, CertManager] = {}


def get_backend(name: str | None = None) -> CertManager:
    """The configured (or named) backend."""
    name = name or CONF[GROUP].cert_manager_type
    with _lock:
        if name not in _backends:
            try:
                manager = driver.DriverManager(NAMESPACE, name, invoke_on_load=True)
            except Exception as exc:
                raise exception.ConfigInvalid(
                    error_msg=f"Unknown [certificates] cert_manager_type {name!r}."
                ) from exc
            _backends[name] = manager.driver
        return _backends[name]
