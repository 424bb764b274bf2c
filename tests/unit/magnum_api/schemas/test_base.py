"""Request bodies: read within the size limit, JSON in UTF-8 only, bounded nesting, and a
create body's attributes checked by their fields (unknown, read-only, mandatory)."""

from __future__ import annotations

import io

import pytest
import webob
from oslo_config import cfg

from magnum_api.schemas import base, fields
from magnum_common import exception

CONF = cfg.CONF


def _request(body: bytes, content_type: str = "application/json",
             length: bool = True) -> webob.Request:
    request = webob.Request.blank("/v1/things", method="POST", body=body)
    request.headers["Content-Type"] = content_type
    if not length:  # a chunked upload: the size is known only by reading
        del request.environ["CONTENT_LENGTH"]
        request.environ["wsgi.input"] = io.BytesIO(body)
        request.environ["wsgi.input_terminated"] = True
    return request


class Thing(base.Body):
    argname = "thing"
    name = fields.String(10, mandatory=True)
    count = fields.Integer(0, 5)
    status = fields.String(20, readonly=True)


def test_a_body_is_json_in_utf8_within_the_limit():
    CONF.set_override("max_request_body_size", 1024, "api")
    assert base.decode(_request(b'{"name": "a"}'), "thing") == {"name": "a"}
    assert base.decode(_request(b'{"name": "a"}', "application/json; charset=UTF-8"),
                       "thing") == {"name": "a"}
    with pytest.raises(base.RequestTooLarge):
        base.decode(_request(b'{"name": "' + b"x" * 1100 + b'"}'), "thing")
    with pytest.raises(base.RequestTooLarge):  # no Content-Length: read no further
        base.read(_request(b"x" * 1100, length=False))
    with pytest.raises(base.UnsupportedMediaType, match="charset"):
        base.decode(_request(b'{}', "application/json; charset=utf-16"), "thing")
    with pytest.raises(base.UnsupportedMediaType, match="mimetype"):
        base.decode(_request(b'{}', "text/plain"), "thing")
    with pytest.raises(base.MissingArgument):
        base.decode(_request(b"  "), "thing")
    with pytest.raises(exception.Invalid, match="not in valid JSON"):
        base.decode(_request(b"NaN"), "thing")
    assert base.UnsupportedMediaType.code == 415 and base.RequestTooLarge.code == 413


def test_nesting_and_nul_are_refused_anywhere_in_the_document():
    base.check_document([[[]]] * 3)
    deep: list = []
    for _ in range(base.MAX_DEPTH):
        deep = [deep]
    with pytest.raises(exception.Invalid, match="nested deeper"):
        base.check_document(deep)
    with pytest.raises(exception.Invalid, match="NUL"):
        base.check_document({"a": [{"b\x00": 1}]})


def test_a_create_body_checks_each_attribute_by_its_field():
    assert Thing.parse({"name": "a", "count": "3"}) == {"name": "a", "count": 3}
    for document, words in (([], "Value not a valid dict"),
                            ({"name": "a", "extra": 1}, "Unknown attribute for argument "
                                                        "thing: extra"),
                            ({"name": "a", "status": "X"}, "Cannot set read only field"),
                            ({"count": 1}, "name. Value: 'None'. Mandatory field missing"),
                            ({"name": None}, "Mandatory field missing"),
                            ({"name": "a", "count": 9}, "Invalid input for field/attribute "
                                                        "count. Value: '9'. Value should be "
                                                        "less or equal to 5")):
        with pytest.raises(exception.Invalid, match=words):
            Thing.parse(document)
    schema = Thing.schema()
    assert schema["required"] == ["name"] and "status" not in schema["properties"]
    assert schema["additionalProperties"] is False
    assert set(Thing.writable()) == {"name", "count"}
    assert Thing.response_fields(("count",))["count"].validate(99) == 99
