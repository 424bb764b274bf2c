"""etcd's data across the replacement of a cluster's only master (no etcd volume).

A lone master keeps etcd on its root disk, which its replacement does not inherit. Before an
upgrade or CA rotation replaces it, the driver asks it for a snapshot through Glance:

1. it creates a private, hidden, empty image ``magnum-etcd-handover-<cluster uuid>`` in the
   cluster's project, carrying a fresh P-256 public key (``magnum_etcd_handover_key``);
2. the master's ``magnum-etcd-handover.timer`` (``40-etcd.sh handover``), logged in with the
   cluster's trust, finds the queued image, takes ``etcdctl snapshot save``, encrypts it to
   that key (ephemeral ECDH, ``openssl enc -aes-256-cbc -pbkdf2``) and uploads it;
3. the driver downloads the upload, decrypts it and checks the snapshot's own SHA-256 trailer
   (what ``etcdutl snapshot restore`` verifies), and only then updates the stack: the new
   master gets the image id, its SHA-512 and the private key in its (hidden) settings and
   restores from it on first boot.

A snapshot that does not arrive in time or does not verify fails the operation before Heat
is asked for anything, so the old master and its data stay as they are. Nothing of it is
stored in clear: Glance holds ciphertext only, the private key lives in the new master's
settings only.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import time
from typing import Any

from cryptography.hazmat.primitives import hashes, padding, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

from drivers.heat.conf import CONF
from magnum_common import exception

NAME_PREFIX = "magnum-etcd-handover-"
KEY_PROPERTY = "magnum_etcd_handover_key"
CLUSTER_PROPERTY = "magnum_cluster_uuid"
#: Length of the DER SubjectPublicKeyInfo of a P-256 key: the upload's first bytes.
PEER_KEY_LEN = 91
PBKDF2_ITERATIONS = 100000
SNAPSHOT_HASH_LEN = 32


@dataclasses.dataclass(frozen=True)
class Handover:
    """A snapshot the new master restores: what its settings carry (all hidden)."""

    image_id: str
    sha512: str
    private_key: str  # base64 of the PEM

    def node_env(self) -> dict[str, str]:
        return {"ETCD_RESTORE_IMAGE": self.image_id, "ETCD_RESTORE_SHA512": self.sha512,
                "ETCD_RESTORE_KEY": self.private_key}


def needed(number_of_masters: int, etcd_volume_size: int) -> bool:
    """Only a lone master without an etcd volume loses its data when replaced."""
    return number_of_masters < 2 and etcd_volume_size < 1


def check_possible(trust_on_nodes: bool) -> None:
    """The master reaches Glance with the cluster's trust; without it there is no way."""
    if not trust_on_nodes:
        raise exception.NotSupported(
            operation="Replacing the only master of a cluster that keeps etcd on the root "
            "disk when the nodes do not hold the cluster's trust ([trust] cluster_user_trust;"
            " or set the label etcd_volume_size, or run 3 masters)")


def decrypt(upload: bytes, private_key: ec.EllipticCurvePrivateKey) -> bytes:
    """The snapshot inside an upload: ECDH with the node's ephemeral key, then the
    ``openssl enc -aes-256-cbc -pbkdf2 -iter 100000 -md sha256`` the node ran, whose pass
    is the shared secret in hex."""
    peer = serialization.load_der_public_key(upload[:PEER_KEY_LEN])
    if not isinstance(peer, ec.EllipticCurvePublicKey):
        raise ValueError("the upload does not start with an EC public key")
    secret = private_key.exchange(ec.ECDH(), peer).hex().encode()
    body = upload[PEER_KEY_LEN:]
    if body[:8] != b"Salted__" or len(body) < 32 or (len(body) - 16) % 16:
        raise ValueError("the upload is not openssl enc output")
    derived = PBKDF2HMAC(hashes.SHA256(), 48, body[8:16], PBKDF2_ITERATIONS).derive(secret)
    decryptor = Cipher(algorithms.AES(derived[:32]), modes.CBC(derived[32:])).decryptor()
    padded = decryptor.update(body[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def check_snapshot(snapshot: bytes) -> None:
    """An etcd snapshot ends with the SHA-256 of what precedes it (restore checks it)."""
    if len(snapshot) <= SNAPSHOT_HASH_LEN or hashlib.sha256(
            snapshot[:-SNAPSHOT_HASH_LEN]).digest() != snapshot[-SNAPSHOT_HASH_LEN:]:
        raise ValueError("the snapshot's SHA-256 trailer does not match its content")


class Glance:
    """The few image calls the hand-over needs, on the conductor's session for the cluster."""

    def __init__(self, session: Any, url: str) -> None:
        self.session, self.url = session, url.rstrip("/")

    def images(self, cluster_uuid: str) -> list[dict[str, Any]]:
        resp = self.session.get(f"{self.url}/v2/images", params={
            "name": NAME_PREFIX + cluster_uuid, "os_hidden": "true"})
        return list(resp.json().get("images") or [])

    def create(self, cluster_uuid: str, public_key: str) -> dict[str, Any]:
        return self.session.post(f"{self.url}/v2/images", json={
            "name": NAME_PREFIX + cluster_uuid, "disk_format": "raw",
            "container_format": "bare", "visibility": "private", "os_hidden": True,
            CLUSTER_PROPERTY: cluster_uuid, KEY_PROPERTY: public_key}).json()

    def get(self, image_id: str) -> dict[str, Any]:
        return self.session.get(f"{self.url}/v2/images/{image_id}").json()

    def data(self, image_id: str) -> bytes:
        return self.session.get(f"{self.url}/v2/images/{image_id}/file").content

    def delete(self, image_id: str) -> None:
        self.session.delete(f"{self.url}/v2/images/{image_id}", raise_exc=False)


def cleanup(glance: Glance, cluster_uuid: str) -> None:
    """Remove the cluster's hand-over images (earlier snapshots, unanswered requests)."""
    for image in glance.images(cluster_uuid):
        glance.delete(image["id"])


def take(glance: Glance, cluster_uuid: str, timeout: float | None = None,
         interval: float = 3.0) -> Handover:
    """Ask the master for a snapshot and wait until it is in Glance and verified."""
    timeout = CONF.drivers.etcd_handover_timeout if timeout is None else timeout
    cleanup(glance, cluster_uuid)
    key = ec.generate_private_key(ec.SECP256R1())
    public = base64.b64encode(key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)).decode()
    image = glance.create(cluster_uuid, public)
    deadline = time.monotonic() + timeout
    while image.get("status") != "active":
        if image.get("status") in ("killed", "deleted", "deactivated"):
            glance.delete(image["id"])
            raise exception.EtcdHandoverFailed(cluster=cluster_uuid,
                                 reason=f"its upload ended {image.get('status')}")
        if time.monotonic() >= deadline:
            glance.delete(image["id"])
            raise exception.EtcdHandoverFailed(cluster=cluster_uuid, reason=(
                f"no snapshot arrived within {timeout:g} s (its "
                "magnum-etcd-handover.timer takes one when asked)"))
        time.sleep(interval)
        image = glance.get(image["id"])
    upload = glance.data(image["id"])
    try:
        check_snapshot(decrypt(upload, key))
    except ValueError as exc:
        glance.delete(image["id"])
        raise exception.EtcdHandoverFailed(cluster=cluster_uuid,
                             reason=f"the snapshot cannot be restored: {exc}") from None
    private = base64.b64encode(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())).decode()
    return Handover(image["id"], hashlib.sha512(upload).hexdigest(), private)
