"""The certificate backend interface and the certificate bundle every backend returns."""

from __future__ import annotations

import abc
import dataclasses

from magnum_common.context import RequestContext
from magnum_conductor.pki import x509


@dataclasses.dataclass(frozen=True)
class Cert:
    """A stored certificate: PEM texts, the private key as stored (encrypted PKCS#8)."""

    certificate: str
    private_key: str | None
    passphrase: str | None = None
    intermediates: str | None = None

    @property
    def decrypted_private_key(self) -> str | None:
        """The private key as unencrypted PEM, for TLS clients."""
        if self.private_key is None:
            return None
        return x509.decrypt_key(self.private_key, self.passphrase)


class CertManager(abc.ABC):
    """Stores certificate bundles and hands back an opaque reference string.

    A reference is all that is kept on the cluster row; ``get_cert`` raises
    ``CertificateNotFound`` for an unknown one and ``delete_cert`` treats it as done.
    """

    @abc.abstractmethod
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
        """Store a bundle; returns its reference. Nothing is left behind on failure.
        ``ref``: the reference :meth:`new_ref` chose, for a backend that lets the caller
        choose it."""

    def new_ref(self) -> str | None:
        """A reference to store the next bundle under, chosen before the call so that the
        caller can journal it first (a crash during the store then leaves nothing unknown);
        None for a backend that makes its own (Barbican)."""
        return None

    def find_named(self, context: RequestContext, names: list[str]) -> list[str]:
        """References of what is stored under ``names``, bundles first, for a backend that
        makes its own references (Barbican): a conductor killed after the store and before
        its journal entry leaves nothing else to find them by. Others journal the reference
        before the store and find nothing here."""
        return []

    @abc.abstractmethod
    def get_cert(self, context: RequestContext, ref: str) -> Cert:
        """The bundle behind ``ref``."""

    @abc.abstractmethod
    def delete_cert(self, context: RequestContext, ref: str) -> None:
        """Delete the bundle; a reference that is already gone is fine."""

    @abc.abstractmethod
    def probe(self) -> None:
        """Raise when the store cannot be used (``magnum-status upgrade check``)."""
