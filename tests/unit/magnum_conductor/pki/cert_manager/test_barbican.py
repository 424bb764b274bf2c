"""What the Barbican store decides without Barbican: which errors mean "not there" (so a
delete of what is gone succeeds and a read says CertificateNotFound) and which do not (a
corrupt payload, a server error), and payloads read back as the PEM text stored, trailing
newline kept. Storing, reading and deleting against the real Barbican is
tests/localcloud/conductor/test_cert_manager_barbican.py."""

from __future__ import annotations

from barbicanclient import exceptions as barbican_exc
from barbicanclient.v1 import secrets
from keystoneauth1 import exceptions as ks_exc

from magnum_conductor.pki.cert_manager import barbican

PEM = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


def test_which_errors_mean_the_certificate_is_not_there():
    assert barbican._is_not_found(barbican_exc.HTTPClientError("gone", status_code=404))
    assert barbican._is_not_found(ks_exc.NotFound())
    assert barbican._is_not_found(ValueError("no such container ref"))
    assert barbican._is_not_found(LookupError("secret"))
    assert not barbican._is_not_found(barbican_exc.HTTPClientError("no", status_code=403))
    assert not barbican._is_not_found(barbican_exc.HTTPServerError("down", status_code=503))
    corrupt = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    assert not barbican._is_not_found(corrupt)  # a ValueError, yet the payload exists


def test_payloads_read_back_as_the_text_stored():
    assert barbican._text(secrets.Secret(None, payload=PEM.encode())) == PEM
    assert barbican._text(secrets.Secret(None, payload=PEM)) == PEM
    assert barbican._text(None) is None  # a part the container does not hold
