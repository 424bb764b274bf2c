"""Octavia's amphora CA: a CA certificate and its key encrypted with the passphrase, made
once (a second run keeps them)."""

from __future__ import annotations

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from localcloud.helpers import octavia_ca


def test_the_ca_is_made_once_with_an_encrypted_key(tmp_path):
    directory = tmp_path / "octavia"
    octavia_ca.main(str(directory), "sesame")
    cert = x509.load_pem_x509_certificate((directory / "ca_01.pem").read_bytes())
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    key_pem = (directory / "cakey.pem").read_bytes()
    with pytest.raises(TypeError):  # no passphrase given for an encrypted key
        serialization.load_pem_private_key(key_pem, None)
    key = serialization.load_pem_private_key(key_pem, b"sesame")
    assert key.public_key().public_numbers() == cert.public_key().public_numbers()
    octavia_ca.main(str(directory), "other")
    assert (directory / "cakey.pem").read_bytes() == key_pem
