"""Identifiers, generated names and passwords."""

from __future__ import annotations

import string

from magnum_common import utils


def test_short_id_is_deterministic_for_a_uuid():
    uuid = "0b2b5e6c-6f0e-4f2e-9c56-3e7c4fd2a1b3"
    assert utils.short_id(uuid) == utils.short_id(uuid)
    assert len(utils.short_id(uuid)) == 12 and utils.short_id(uuid).isalnum()
    assert utils.short_id() != utils.short_id()


def test_generated_password_has_every_symbol_group(db):
    for _ in range(20):
        password = utils.generate_password()
        assert len(password) == 18
        assert any(c in "23456789" for c in password)
        assert any(c in string.ascii_uppercase for c in password)
        assert any(c in string.ascii_lowercase for c in password)


def test_generated_names_and_catalog_interfaces():
    name = utils.generate_name("federation")
    letter, number, kind = name.split("-")
    assert letter in utils.GREEK_LETTERS and 1 <= int(number) <= 24 and kind == "federation"
    assert [utils.catalog_interface(v) for v in ("publicURL", "internalURL", "admin", None)] \
        == ["public", "internal", "admin", "public"]
    assert utils.is_uuid_like(utils.generate_uuid()) and not utils.is_uuid_like("c1")
