"""At-rest encryption of the secrets the conductor keeps in the database.

Encrypted with it: ``cluster.trustee_password`` and the private keys and passphrases of the
``x509keypair`` certificate backend. Tokens are Fernet (AES-128-CBC + HMAC-SHA256, with a
version byte and timestamp), so tampering is detected and the format is self-describing.

Key handling (a deliberate decision): the key is deployment configuration,
``[crypto] encryption_key`` (``generate_key()`` makes one). Nothing is derived or generated
when it is unset, because every conductor host must decrypt what any other host encrypted and
a per-host generated key would silently make clusters unmanageable elsewhere. An unset or
malformed key raises ``ConfigInvalid`` naming the option, and only when a secret is actually
encrypted or decrypted: processes that never touch secrets (the API) start without it.

Rotation: put the new key in ``encryption_key`` and the old ones in
``previous_encryption_keys``; old tokens still decrypt, ``encrypt`` always uses the new key
and ``reencrypt`` moves a stored token to it.

Public API: ``encrypt(text) -> str``, ``decrypt(token) -> str``, ``reencrypt(token) -> str``,
``generate_key() -> str``, ``exception.DecryptionFailed``, ``list_opts()``.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from oslo_config import cfg

from magnum_common import exception

CONF = cfg.CONF

GROUP = "crypto"

crypto_opts = [
    cfg.StrOpt(
        "encryption_key",
        secret=True,
        help="Key encrypting secrets stored in the database (trustee passwords, private "
        "keys of the x509keypair certificate backend): 32 random bytes in url-safe base64, "
        "e.g. from `python -c 'from cryptography.fernet import Fernet; "
        "print(Fernet.generate_key().decode())'`. Must be identical on every conductor "
        "host. Required as soon as a cluster is created.",
    ),
    cfg.ListOpt(
        "previous_encryption_keys",
        default=[],
        secret=True,
        help="Former values of encryption_key, still accepted for decryption while stored "
        "secrets are moved to the current key.",
    ),
]

CONF.register_opts(crypto_opts, group=GROUP)


def generate_key() -> str:
    """A fresh key suitable for ``[crypto] encryption_key``."""
    return Fernet.generate_key().decode("ascii")


def _fernet() -> MultiFernet:
    current = CONF.crypto.encryption_key
    if not current:
        raise exception.ConfigInvalid(
            error_msg="[crypto] encryption_key is not set; it is needed to store cluster "
            "secrets. Generate one with magnum_conductor.identity.crypto.generate_key()."
        )
    keys = [current, *CONF.crypto.previous_encryption_keys]
    try:
        return MultiFernet([Fernet(key.strip().encode("ascii")) for key in keys])
    except (ValueError, UnicodeEncodeError) as exc:
        raise exception.ConfigInvalid(
            error_msg="[crypto] encryption_key / previous_encryption_keys must be 32 bytes "
            "of url-safe base64."
        ) from exc


def encrypt(text: str) -> str:
    """Encrypt ``text`` with the current key; the result is ASCII, safe for any column."""
    return _fernet().encrypt(text.encode("utf-8")).decode("ascii")


def decrypt(token: str) -> str:
    """Decrypt a token made by ``encrypt`` with the current or a previous key."""
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeEncodeError) as exc:
        raise exception.DecryptionFailed() from exc


def reencrypt(token: str) -> str:
    """The same secret encrypted with the current key (for key rotation)."""
    try:
        return _fernet().rotate(token.encode("ascii")).decode("ascii")
    except (InvalidToken, UnicodeEncodeError) as exc:
        raise exception.DecryptionFailed() from exc


def list_opts() -> list[tuple[str, list[cfg.Opt]]]:
    return [(GROUP, crypto_opts)]
