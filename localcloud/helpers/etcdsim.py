"""The simulated masters' etcd: a keyspace per master, and the snapshot hand-over of a lone
master (``drivers/common/fragments/40-etcd.sh``: ``etcd_handover``, ``etcd_restore``).

A snapshot is what ``etcdctl snapshot save`` writes, in spirit: the keyspace (JSON here,
a bbolt file there) followed by the SHA-256 of what precedes it, which a restore checks.
Sealing and unsealing are the fragment's ``seal`` / ``unseal`` byte for byte: the DER public
key of an ephemeral P-256 key, then ``openssl enc -aes-256-cbc -pbkdf2 -iter 100000 -md
sha256`` output whose pass is the ECDH secret in hex. Glance is reached as the node would:
with the trustee's token scoped to the cluster's trust.

Runs in the cloud's virtualenv (``cryptography`` comes with its services).
"""

import base64
import hashlib
import json
import os
import urllib.error
import urllib.parse
import urllib.request

from localcloud.helpers import nodeboot

NAME_PREFIX = "magnum-etcd-handover-"
PEER_KEY_LEN = 91
ITERATIONS = 100000
TIMEOUT = 30


class RestoreError(RuntimeError):
    """The snapshot could not be fetched, verified or decrypted (etcd_restore failed)."""


def snapshot(keyspace):
    data = json.dumps(keyspace, sort_keys=True).encode()
    return data + hashlib.sha256(data).digest()


def load_snapshot(data):
    body, trailer = data[:-32], data[-32:]
    if len(data) <= 32 or hashlib.sha256(body).digest() != trailer:
        raise RestoreError("snapshot hash mismatch")
    return json.loads(body)


def _kdf(secret_hex, salt):
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    derived = PBKDF2HMAC(hashes.SHA256(), 48, salt, ITERATIONS).derive(secret_hex)
    return derived[:32], derived[32:]


def seal(peer_der, data):
    from cryptography.hazmat.primitives import padding, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    peer = serialization.load_der_public_key(peer_der)
    eph = ec.generate_private_key(ec.SECP256R1())
    secret = eph.exchange(ec.ECDH(), peer).hex().encode()
    salt = os.urandom(8)
    key, iv = _kdf(secret, salt)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(data) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return (eph.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
            + b"Salted__" + salt + enc.update(padded) + enc.finalize())


def unseal(private_pem, sealed):
    from cryptography.hazmat.primitives import padding, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    private = serialization.load_pem_private_key(private_pem, None)
    peer = serialization.load_der_public_key(sealed[:PEER_KEY_LEN])
    secret = private.exchange(ec.ECDH(), peer).hex().encode()
    body = sealed[PEER_KEY_LEN:]
    key, iv = _kdf(secret, body[8:16])
    dec = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    padded = dec.update(body[16:]) + dec.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    return unpadder.update(padded) + unpadder.finalize()


def _glance(node, token, method, path, data=None, headers=None):
    req = urllib.request.Request(node.get("GLANCE_URL").rstrip("/") + path, data=data,
                                 method=method, headers={"X-Auth-Token": token,
                                                         **(headers or {})})
    with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
        return resp.read()


def lone_master(node):
    """A master that hands its snapshot over: the only one, etcd on its root disk, and the
    settings the handover timer needs (40-etcd.sh installs it only then)."""
    return (node.master and len([ip for ip in node.get("MASTER_IPS").split(",") if ip]) == 1
            and not node.get("ETCD_VOLUME_ID") and bool(node.get("GLANCE_URL"))
            and bool(node.get("TRUST_ID")))


def answer_request(node, keyspace, token=None):
    """One run of magnum-etcd-handover.service: a queued request gets the sealed snapshot.
    Returns the image id answered, or None when nothing was asked."""
    token = token or nodeboot.trustee_token(node)
    query = urllib.parse.urlencode({"name": NAME_PREFIX + node.cluster, "os_hidden": "true",
                                    "status": "queued"})
    images = json.loads(_glance(node, token, "GET", "/v2/images?" + query)).get("images")
    if not images:
        return None
    image = images[0]
    peer = base64.b64decode(image.get("magnum_etcd_handover_key") or "")
    _glance(node, token, "PUT", "/v2/images/%s/file" % urllib.parse.quote(image["id"]),
            seal(peer, snapshot(keyspace)), {"Content-Type": "application/octet-stream"})
    return image["id"]


def restore(node):
    """The keyspace a replacement master restores (etcd_restore), or RestoreError."""
    image_id = node.get("ETCD_RESTORE_IMAGE")
    try:
        token = nodeboot.trustee_token(node)
        sealed = _glance(node, token, "GET",
                         "/v2/images/%s/file" % urllib.parse.quote(image_id))
    except (nodeboot.BootError, urllib.error.URLError, OSError) as e:
        raise RestoreError("cannot download image %s: %s" % (image_id, e)) from None
    if hashlib.sha512(sealed).hexdigest() != node.get("ETCD_RESTORE_SHA512"):
        raise RestoreError("image %s is not the snapshot Magnum verified" % image_id)
    try:
        return load_snapshot(unseal(base64.b64decode(node.get("ETCD_RESTORE_KEY")), sealed))
    except (ValueError, TypeError) as e:
        raise RestoreError("cannot decrypt image %s: %s" % (image_id, e)) from None
