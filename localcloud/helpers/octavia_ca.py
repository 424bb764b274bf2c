"""Make the CA Octavia's local certificate generator signs amphora certificates with.

Run with the cloud venv's python: octavia_ca.py <dir> <passphrase>. Writes <dir>/ca_01.pem
(also used as client_ca) and <dir>/cakey.pem, encrypted with the passphrase (Octavia refuses
an unencrypted CA key when a passphrase is configured). Does nothing if both exist.
"""
import datetime
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID


def main(directory, passphrase):
    cert_path = os.path.join(directory, "ca_01.pem")
    key_path = os.path.join(directory, "cakey.pem")
    if os.path.exists(cert_path) and os.path.exists(key_path):
        return
    os.makedirs(directory, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localcloud octavia CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.BestAvailableEncryption(passphrase.encode())))
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
