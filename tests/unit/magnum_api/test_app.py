"""The application: the paste pipeline picked by ``auth_strategy``, bodies decoded only by
the schemas, and no start without usable ``[crypto]`` keys."""

from __future__ import annotations

import json

import pytest
import webtest
from oslo_config import cfg

from magnum_api import app
from magnum_common import crypto, exception

CONF = cfg.CONF


def test_the_noauth_pipeline_answers_version_discovery(db):
    CONF.set_override("auth_strategy", "noauth")
    CONF.set_override("encryption_key", crypto.generate_key(), "crypto")
    api = webtest.TestApp(app.load_app())
    root = api.get("/")
    assert root.json["versions"][0]["id"] == "v1"
    assert api.get("/v1/nowhere", expect_errors=True).json["errors"][0]["status"] == 404
    assert app.paste_config_path().endswith("api-paste.ini")


def test_no_start_without_a_usable_key(db):
    CONF.set_override("auth_strategy", "noauth")
    CONF.set_override("encryption_key", "not-a-fernet-key", "crypto")
    with pytest.raises(exception.ConfigInvalid):
        app.load_app()


def test_handlers_never_get_pecans_own_body_parsing():
    request = app.Request.blank("/v1/clusters", method="POST", body=json.dumps({}).encode(),
                                content_type="application/json")
    with pytest.raises(TypeError, match="decoded by the schemas"):
        request.json  # noqa: B018 - the property raises
    assert not request.POST


def test_a_paste_file_the_configuration_does_not_have_is_the_shipped_one(tmp_path):
    mine = tmp_path / "my-paste.ini"
    mine.write_text("[composite:main]\n")
    CONF.set_override("api_paste_config", str(mine), "api")
    assert app.paste_config_path() == str(mine)
    CONF.set_override("api_paste_config", str(tmp_path / "nowhere.ini"), "api")
    assert app.paste_config_path() == app._SHIPPED_PASTE[0]
