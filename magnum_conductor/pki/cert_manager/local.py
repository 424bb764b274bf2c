"""Certificates as files under ``[certificates] storage_path`` (single host, testing only).

A bundle is ``<ref>.crt``, ``.key`` and optionally ``.int`` / ``.pass``, each mode 0600 in a
0700 directory; the private key stays encrypted under its passphrase as generated. The
``.crt`` file is written last (atomically), so a reference is visible only once complete.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

from oslo_config import cfg

from magnum_common import exception, utils
from magnum_common.context import RequestContext
from magnum_conductor.pki.cert_manager import base

CONF = cfg.CONF

_PARTS = (("certificate", ".crt"), ("private_key", ".key"), ("intermediates", ".int"),
          ("passphrase", ".pass"))


def _write(path: str, text: str) -> None:
    """Write ``text`` readable by the owner only, replacing ``path`` atomically."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _read(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


class CertManager(base.CertManager):
    """Files on this host's disk."""

    def probe(self) -> None:
        """The storage directory must exist (or be creatable) and be writable."""
        path = CONF.certificates.storage_path
        os.makedirs(path, mode=0o700, exist_ok=True)
        if not os.access(path, os.W_OK | os.X_OK):
            raise PermissionError(f"{path} is not writable")

    def _path(self, ref: str, suffix: str) -> str:
        if not utils.is_uuid_like(ref):
            raise exception.CertificateNotFound(certificate=ref)
        return os.path.join(CONF.certificates.storage_path, ref + suffix)

    def store_cert(
        self,
        context: RequestContext,
        certificate: str,
        private_key: str,
        passphrase: str | None = None,
        intermediates: str | None = None,
        name: str = "Magnum certificate",
        ref: str | None = None,
    ) -> str:
        os.makedirs(CONF.certificates.storage_path, mode=0o700, exist_ok=True)
        ref = ref or utils.generate_uuid()
        values = {"certificate": certificate, "private_key": private_key,
                  "intermediates": intermediates, "passphrase": passphrase}
        try:
            for field, suffix in reversed(_PARTS):
                if values[field] is not None:
                    _write(self._path(ref, suffix), values[field])
        except OSError:
            self.delete_cert(context, ref)
            raise
        return ref

    def new_ref(self) -> str:
        return utils.generate_uuid()

    def get_cert(self, context: RequestContext, ref: str) -> base.Cert:
        values = {field: _read(self._path(ref, suffix)) for field, suffix in _PARTS}
        if values["certificate"] is None:
            raise exception.CertificateNotFound(certificate=ref)
        return base.Cert(**values)

    def delete_cert(self, context: RequestContext, ref: str) -> None:
        if not utils.is_uuid_like(ref):
            return
        for _field, suffix in _PARTS:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._path(ref, suffix))
