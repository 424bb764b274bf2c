"""Certificates in the ``x509keypair`` table; private keys and passphrases encrypted.

Rows belong to the project and user of the context given (the facade ``cluster_certs``
passes the cluster's owner, so the service and the owner find the same rows). The private
key and its passphrase go through ``magnum_common.crypto`` before reaching the database.
"""

from __future__ import annotations

from magnum_common import crypto, exception, utils
from magnum_common.context import RequestContext
from magnum_common.db.x509keypairs import x509keypairs
from magnum_conductor.pki.cert_manager import base


def _encrypt(text: str | None) -> str | None:
    return None if text is None else crypto.encrypt(text)


def _decrypt(token: str | None) -> str | None:
    return None if token is None else crypto.decrypt(token)


class CertManager(base.CertManager):
    """The database as certificate store."""

    def probe(self) -> None:
        """The table answers and the encryption key is configured and valid."""
        x509keypairs.count(None)
        crypto.decrypt(crypto.encrypt("probe"))

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
        row = x509keypairs.create(context, {
            "uuid": ref,
            "certificate": certificate,
            "private_key": _encrypt(private_key),
            "private_key_passphrase": _encrypt(passphrase),
            "intermediates": intermediates,
            "project_id": context.project_id,
            "user_id": context.user_id,
        })
        return row.uuid

    def new_ref(self) -> str:
        return utils.generate_uuid()

    def get_cert(self, context: RequestContext, ref: str) -> base.Cert:
        try:
            row = x509keypairs.get_by_uuid(context, ref)
        except exception.X509KeyPairNotFound as exc:
            raise exception.CertificateNotFound(certificate=ref) from exc
        return base.Cert(
            certificate=row.certificate,
            private_key=_decrypt(row.private_key),
            passphrase=_decrypt(row.private_key_passphrase),
            intermediates=row.intermediates,
        )

    def delete_cert(self, context: RequestContext, ref: str) -> None:
        try:
            x509keypairs.destroy(context, ref)
        except exception.X509KeyPairNotFound:
            pass
