"""The field types: what each accepts and refuses, and that its JSON Schema (what the
OpenAPI document promises) agrees with what ``validate`` does, value by value."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from magnum_api.schemas import fields
from magnum_common import exception

#: Fields whose schema and validation must agree on every JSON value.
FIELDS = {
    "string": fields.String(8, 2, pattern="^[a-z]+$"),
    "integer": fields.Integer(1, 10),
    "strict-integer": fields.Integer(0, 5, strings=False, nullable=False),
    "boolean": fields.Boolean(),
    "enum": fields.Enum(("vm", "bm")),
    "uuid": fields.Uuid(nullable=False),
    "dict": fields.Dict(fields.String(4), fields.Integer(0, 9, strings=False), 2),
    "list": fields.List(fields.String(3, nullable=False), 2, nullable=False),
    "object": fields.Object({"a": fields.Integer(0, 3), "b": fields.String(3)},
                            required=("a",), nullable=False),
}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-20, 20) | st.floats(allow_nan=False,
                                                                allow_infinity=False)
    | st.text(max_size=10) | st.from_regex(r"\A[+-]?0?[0-9]{1,2}\Z")
    | st.sampled_from(["yes", "Off", "vm", "ab", "abc", "-0",
                       "8e7a8f6e-0c7e-4c5d-9d9e-8f1d0a3c1b2a"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "c", "abcde"]), children, max_size=3),
    max_leaves=6)


def _accepted(field: fields.Field, value) -> bool:
    try:
        field.validate(value)
    except fields.FieldError:
        return False
    return True


@pytest.mark.parametrize("name", list(FIELDS))
@settings(max_examples=100, deadline=None, derandomize=True)
@given(value=JSON)
def test_the_schema_says_what_validation_does(name, value):
    field = FIELDS[name]
    schema_ok = Draft202012Validator(field.schema(),
                                     format_checker=Draft202012Validator.FORMAT_CHECKER
                                     ).is_valid(value)
    assert _accepted(field, value) == schema_ok, (field.schema(), value)


def test_strings_refuse_nul_lone_surrogates_and_lengths():
    field = fields.String(5)
    assert field.validate("ok") == "ok"
    for bad, reason in (("a\x00b", "NUL"), ("a\udc80", "lone surrogate"),
                        ("", "minimum character requirement of 1"),
                        ("toolong", "maximum character requirement of 5"),
                        (5, "Expected a string, got 'integer'")):
        with pytest.raises(fields.FieldError, match=reason):
            field.validate(bad)
    assert fields.String(5, blank_is_absent=True).validate("") is None


def test_integers_are_integers_within_bounds_and_a_configured_maximum():
    limit = {"value": 3}
    field = fields.Integer(1, lambda: limit["value"])
    assert field.validate("2") == 2 and field.validate(3) == 3
    for bad in (True, 2.0, 1e308, "1e3", [1], 0, 4):
        with pytest.raises(fields.FieldError):
            field.validate(bad)
    limit["value"] = 10
    assert field.validate(4) == 4 and field.type_schema()["anyOf"][0]["maximum"] == 10
    # the document bounds a number sent as a string as it bounds the number
    strings = re.compile(field.type_schema()["anyOf"][1]["pattern"])
    assert [bool(strings.match(v)) for v in ("1", "+010", "10", "11", "0", "-0")] == [
        True, True, True, False, False, False]
    assert fields.Integer(strings=False).type_schema() == {"type": "integer", "minimum": 0,
                                                          "maximum": fields.INT32_MAX}


def test_booleans_take_the_strict_words_in_any_case():
    assert [fields.parse_bool(v) for v in (True, "YES", "off", "T", "0")] == [
        True, True, False, True, False]
    for bad in ("maybe", 1, None, "truee"):
        with pytest.raises(fields.FieldError, match="acceptable values are"):
            fields.parse_bool(bad)


def test_label_scalars_and_the_size_a_text_column_holds():
    scalar = fields.Scalar(10)
    assert [scalar.validate(v) for v in ("x", 3, 2.5, False)] == ["x", 3, 2.5, False]
    for bad in (float("nan"), float("inf"), 10**16, [1], {"a": 1}, "x" * 11):
        with pytest.raises(fields.FieldError):
            scalar.validate(bad)
    big = fields.Dict(fields.String(255), fields.String(5000), None, max_bytes=100)
    with pytest.raises(fields.FieldError, match="at most 100 bytes as JSON"):
        big.validate({"k": "x" * 200})


def test_errors_name_the_path_and_keep_the_magnum_exception():
    field = fields.Object({"servers": fields.List(fields.Uuid(nullable=False))})
    with pytest.raises(fields.FieldError) as raised:
        field.validate({"servers": ["8e7a8f6e-0c7e-4c5d-9d9e-8f1d0a3c1b2a", "nope"]})
    assert raised.value.reason == "servers: [1]: Expected a uuid but received nope."
    assert isinstance(raised.value.exc, exception.InvalidUUID)
    with pytest.raises(fields.FieldError, match="unknown attribute"):
        field.validate({"other": 1})
    dns = fields.DNSList(255)
    assert dns.validate("127.0.0.53, 127.0.0.1") == "127.0.0.53, 127.0.0.1"
    with pytest.raises(fields.FieldError) as raised:
        dns.validate("127.0.0.1,not-an-ip")
    assert isinstance(raised.value.exc, exception.InvalidDNS)
    assert fields.clip("x" * 300).endswith("...") and len(fields.clip("x" * 300)) == 203


def test_responses_drop_the_request_bounds():
    assert fields.String(5).response().type_schema() == {"type": "string"}
    assert fields.Boolean().response().validate(True) is True
    with pytest.raises(fields.FieldError):
        fields.Boolean().response().validate("yes")
    assert fields.Integer(1, 3).response().validate(10**12) == 10**12
