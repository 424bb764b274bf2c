"""At-rest encryption: round trips, key rotation, and loud failures on missing/bad keys."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import config as magnum_config
from magnum_common import crypto, exception

CONF = cfg.CONF


@pytest.fixture
def key() -> str:
    value = crypto.generate_key()
    CONF.set_override("encryption_key", value, "crypto")
    return value


def test_round_trip_and_randomised(key):
    token = crypto.encrypt("s3cr3t-ü")
    assert "s3cr3t" not in token
    assert crypto.decrypt(token) == "s3cr3t-ü"
    assert crypto.encrypt("s3cr3t-ü") != token  # fresh IV each time


def test_unset_key_is_a_config_error_naming_the_option():
    with pytest.raises(exception.ConfigInvalid, match=r"\[crypto\] encryption_key"):
        crypto.encrypt("x")
    with pytest.raises(exception.ConfigInvalid):
        crypto.decrypt("gAAAAA")


def test_malformed_key_is_a_config_error():
    CONF.set_override("encryption_key", "not-a-key", "crypto")
    with pytest.raises(exception.ConfigInvalid, match="url-safe base64"):
        crypto.encrypt("x")


def test_wrong_key_or_tampering_fails_decryption(key):
    token = crypto.encrypt("payload")
    tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
    with pytest.raises(exception.DecryptionFailed):
        crypto.decrypt(tampered)
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    with pytest.raises(exception.DecryptionFailed):
        crypto.decrypt(token)
    with pytest.raises(exception.DecryptionFailed):
        crypto.decrypt("not a token ✓")


def test_rotation_keeps_old_tokens_readable_and_reencrypt_moves_them(key):
    old_token = crypto.encrypt("trustee-password")
    new_key = crypto.generate_key()
    CONF.set_override("encryption_key", new_key, "crypto")
    CONF.set_override("previous_encryption_keys", [key], "crypto")
    assert crypto.decrypt(old_token) == "trustee-password"
    moved = crypto.reencrypt(old_token)
    CONF.clear_override("previous_encryption_keys", "crypto")
    assert crypto.decrypt(moved) == "trustee-password"
    with pytest.raises(exception.DecryptionFailed):
        crypto.decrypt(old_token)


def test_seal_round_trips_json_and_hides_it(key):
    secret = {"token": "gAAAAAB-real-token-value", "expires_at": "2030-01-01T00:00:00Z"}
    token = crypto.seal(secret)
    assert "real-token-value" not in token and token.startswith(crypto.TOKEN_PREFIX)
    assert crypto.unseal(token) == secret
    with pytest.raises(exception.DecryptionFailed):
        crypto.unseal(token[:-4] + "AAAA")


def test_reseal_in_moves_every_token_of_a_json_value_to_the_new_key(key):
    value = {"credentials": crypto.seal({"token": "t"}), "node_count": 3,
             "nested": [crypto.encrypt("p"), "gAAAAA-not-a-token", None], "name": "x"}
    new_key = crypto.generate_key()
    CONF.set_override("encryption_key", new_key, "crypto")
    CONF.set_override("previous_encryption_keys", [key], "crypto")
    moved, count = crypto.reseal_in(value)
    assert count == 2
    assert moved["node_count"] == 3 and moved["name"] == "x"
    assert moved["nested"][1:] == ["gAAAAA-not-a-token", None]
    CONF.clear_override("previous_encryption_keys", "crypto")
    assert crypto.unseal(moved["credentials"]) == {"token": "t"}
    assert crypto.decrypt(moved["nested"][0]) == "p"


def test_options_are_listed_and_the_key_is_secret():
    by_group = dict(magnum_config.list_opts())
    by_name = {opt.name: opt for opt in by_group["crypto"]}
    assert by_name["encryption_key"].secret
    assert by_name["previous_encryption_keys"].secret


def test_the_node_token_is_per_cluster_and_survives_a_key_rotation(key):
    token = crypto.node_token("c-1")
    assert len(token) == 64 and token == crypto.node_token("c-1")
    assert token != crypto.node_token("c-2") and key not in token
    assert crypto.check_node_token("c-1", token)
    assert not crypto.check_node_token("c-2", token)
    assert not crypto.check_node_token("c-1", token[:-1] + "x")
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    assert not crypto.check_node_token("c-1", token)  # the old key retired
    CONF.set_override("previous_encryption_keys", [key], "crypto")
    assert crypto.check_node_token("c-1", token)  # still listed: old nodes keep working
    assert crypto.node_token("c-1") != token  # new nodes get the current key's
