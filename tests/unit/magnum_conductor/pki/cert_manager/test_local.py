"""The local (files) certificate backend and backend selection by entry point."""

from __future__ import annotations

import errno
import os
import stat

import pytest
from oslo_config import cfg

from magnum_common import exception
from magnum_common.context import RequestContext
from magnum_conductor.pki import cert_manager, x509
from magnum_conductor.pki.cert_manager import local

CONF = cfg.CONF
CTX = RequestContext(user_id="u1", project_id="p1")


@pytest.fixture
def store(tmp_path) -> local.CertManager:
    CONF.set_override("storage_path", str(tmp_path / "certs"), "certificates")
    CONF.set_override("cert_manager_type", "local", "certificates")
    return cert_manager.get_backend()


@pytest.fixture(scope="module")
def pair() -> x509.CertKeyPair:
    return x509.generate_ca("local-test")


def test_configured_backend_is_loaded_by_entry_point(store):
    assert isinstance(store, local.CertManager)
    assert cert_manager.get_backend("local") is store


def test_unknown_backend_is_a_config_error():
    with pytest.raises(exception.ConfigInvalid, match="nope"):
        cert_manager.get_backend("nope")


def test_round_trip_keeps_files_private(store, pair, tmp_path):
    ref = store.store_cert(CTX, pair.certificate, pair.private_key, passphrase=pair.passphrase,
                           intermediates="INTERMEDIATES\n")
    cert = store.get_cert(CTX, ref)
    assert cert.certificate == pair.certificate
    assert cert.private_key == pair.private_key
    assert cert.passphrase == pair.passphrase
    assert cert.intermediates == "INTERMEDIATES\n"
    assert "BEGIN PRIVATE KEY" in cert.decrypted_private_key
    directory = tmp_path / "certs"
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    files = sorted(p.name for p in directory.iterdir())
    assert files == sorted(f"{ref}{s}" for s in (".crt", ".key", ".int", ".pass"))
    assert all(stat.S_IMODE(os.stat(directory / f).st_mode) == 0o600 for f in files)


def test_optional_parts_may_be_absent(store, pair):
    ref = store.store_cert(CTX, pair.certificate, x509.decrypt_key(pair.private_key,
                                                                   pair.passphrase))
    cert = store.get_cert(CTX, ref)
    assert cert.passphrase is None and cert.intermediates is None
    assert "BEGIN PRIVATE KEY" in cert.decrypted_private_key


def test_delete_removes_everything_and_tolerates_missing(store, pair, tmp_path):
    ref = store.store_cert(CTX, pair.certificate, pair.private_key, passphrase=pair.passphrase)
    store.delete_cert(CTX, ref)
    assert list((tmp_path / "certs").iterdir()) == []
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(CTX, ref)
    store.delete_cert(CTX, ref)
    store.delete_cert(CTX, "../../etc/passwd")


def test_refs_cannot_escape_the_storage_directory(store):
    with pytest.raises(exception.CertificateNotFound):
        store.get_cert(CTX, "../../etc/passwd")


def test_a_failed_store_leaves_nothing(store, pair, tmp_path, monkeypatch):
    real_write = local._write

    def disk_full_on_certificate(path: str, text: str) -> None:
        if path.endswith(".crt"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(path, text)

    monkeypatch.setattr(local, "_write", disk_full_on_certificate)
    with pytest.raises(OSError):
        store.store_cert(CTX, pair.certificate, pair.private_key, passphrase="p",
                         intermediates="i")
    assert list((tmp_path / "certs").iterdir()) == []


def test_probe_creates_the_directory_and_refuses_an_unwritable_one(tmp_path):
    from oslo_config import cfg

    from magnum_conductor.pki.cert_manager import local

    target = tmp_path / "certs"
    cfg.CONF.set_override("storage_path", str(target), "certificates")
    local.CertManager().probe()
    assert target.is_dir()
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cfg.CONF.set_override("storage_path", str(blocker / "sub"), "certificates")
    with pytest.raises(OSError):
        local.CertManager().probe()
