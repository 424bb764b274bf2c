"""Encryption of the secrets Magnum keeps: the one seal/unseal path of every service.

What goes through it: ``cluster.trustee_password``, the private keys and passphrases of the
``x509keypair`` certificate backend, and the requester's credentials the API records with an
operation (``seal``), so a conductor can act later without a token ever resting in clear.
The API seals and the conductor unseals, so the primitive lives here, in ``magnum_common``.
Tokens are Fernet (AES-128-CBC + HMAC-SHA256, with a version byte and timestamp), so
tampering is detected and the format is self-describing.

Key handling (a deliberate decision): the key is deployment configuration,
``[crypto] encryption_key`` (``generate_key()`` makes one), the same on every API and
conductor host. Nothing is derived or generated when it is unset, because every host must
decrypt what any other host encrypted and a per-host generated key would silently make
clusters unmanageable elsewhere. An unset or malformed key raises ``ConfigInvalid`` naming
the option, and only when a secret is actually encrypted or decrypted.

Rotation: put the new key in ``encryption_key`` and the old ones in
``previous_encryption_keys``; old tokens still decrypt, ``encrypt`` always uses the new key,
``reencrypt`` moves a stored token to it and ``reseal_in`` moves every token inside a JSON
value.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from magnum_common import exception
from magnum_common.config import CONF

#: Every Fernet token starts with its version byte 0x80, base64: "gAAAAA".
TOKEN_PREFIX = "gAAAAA"


def generate_key() -> str:
    """A fresh key suitable for ``[crypto] encryption_key``."""
    return Fernet.generate_key().decode("ascii")


def _fernet() -> MultiFernet:
    current = CONF.crypto.encryption_key
    if not current:
        raise exception.ConfigInvalid(
            error_msg="[crypto] encryption_key is not set; it is needed to store cluster "
            "secrets. Generate one with magnum_common.crypto.generate_key()."
        )
    keys = [current, *CONF.crypto.previous_encryption_keys]
    try:
        return MultiFernet([Fernet(key.strip().encode("ascii")) for key in keys])
    except (ValueError, UnicodeEncodeError) as exc:
        raise exception.ConfigInvalid(
            error_msg="[crypto] encryption_key / previous_encryption_keys must be 32 bytes "
            "of url-safe base64."
        ) from exc


def check_configured() -> None:
    """Raise ``ConfigInvalid`` now unless the keys are usable (a service's start-up check)."""
    _fernet()


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


def _node_token(key: str, cluster_uuid: str) -> str:
    # A key of its own per purpose: the Fernet key itself never signs anything else.
    raw = base64.urlsafe_b64decode(key.strip().encode("ascii"))
    derived = hashlib.sha256(b"magnum node token key\0" + raw).digest()
    return hmac.new(derived, cluster_uuid.encode("ascii"), hashlib.sha256).hexdigest()


def node_token(cluster_uuid: str) -> str:
    """The node token of a cluster: what its nodes present to the certificate routes when
    they hold no trust (``[trust] cluster_user_trust = false``). Derived (HMAC-SHA256) from
    the current key, so nothing is stored; it is worth nothing outside those routes."""
    _fernet()  # the same ConfigInvalid as every other use when the key is unset
    return _node_token(CONF.crypto.encryption_key, cluster_uuid)


def check_node_token(cluster_uuid: str, token: str) -> bool:
    """Whether ``token`` is the cluster's node token under the current or a previous key
    (nodes booted before a key rotation keep working until the old key is retired)."""
    _fernet()
    keys = [CONF.crypto.encryption_key, *CONF.crypto.previous_encryption_keys]
    return any(hmac.compare_digest(_node_token(key, cluster_uuid), token) for key in keys)


def seal(value: Any) -> str:
    """A JSON value (e.g. a dict of credentials) as one token, to store or send."""
    return encrypt(json.dumps(value, separators=(",", ":"), sort_keys=True))


def unseal(token: str) -> Any:
    """The JSON value ``seal`` made; ``DecryptionFailed`` on a wrong key or tampering."""
    return json.loads(decrypt(token))


def reseal_in(value: Any) -> tuple[Any, int]:
    """``value`` (any JSON) with every token in it moved to the current key, and how many
    tokens were moved; strings that are no token of ours are kept as they are."""
    if isinstance(value, dict):
        moved = 0
        result = {}
        for key, item in value.items():
            result[key], count = reseal_in(item)
            moved += count
        return result, moved
    if isinstance(value, list):
        pairs = [reseal_in(item) for item in value]
        return [item for item, _ in pairs], sum(count for _, count in pairs)
    if isinstance(value, str) and value.startswith(TOKEN_PREFIX):
        try:
            return reencrypt(value), 1
        except exception.DecryptionFailed:
            return value, 0
    return value, 0
