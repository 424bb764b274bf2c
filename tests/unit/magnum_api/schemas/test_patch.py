"""JSON-patch bodies: the operations taken, the paths refused, how python-magnumclient's
dict literals are read, and the re-check of what a patch changed."""

from __future__ import annotations

import pytest

from magnum_api.schemas import base, fields, patch
from magnum_common import exception


class Node(base.Body):
    name = fields.String(10)
    node_count = fields.Integer(0, 5)
    labels = fields.Dict(fields.String(20), fields.String(20))


DOC = {"uuid": "u-1", "name": "n", "node_count": 1, "labels": {"a": "1"}, "flavor": None}


def test_the_operations_a_patch_may_hold():
    ops = patch.Patch.parse([{"op": "replace", "path": "/node_count", "value": 2},
                             {"op": "remove", "path": "/labels/a", "value": None}])
    assert ops == [{"op": "replace", "path": "/node_count", "value": 2},
                   {"op": "remove", "path": "/labels/a"}]
    for document, words in (({"op": "replace"}, "Value not a valid list"),
                            ([1], "Value not a valid dict"),
                            ([{"op": "move", "path": "/a"}], "Value should be one of"),
                            ([{"op": "add", "path": None}], "Mandatory field missing"),
                            ([{"op": "add", "path": "/a/b/c", "value": 1}], "pattern"),
                            ([{"op": "add", "path": "/a", "value": [1]}], "Wrong type"),
                            ([{"op": "add", "path": "/a", "from": "/b"}], "Unknown attribute"),
                            ([{"op": "remove", "path": "/a"}] * 101, "at most 100")):
        with pytest.raises(exception.Invalid, match=words):
            patch.Patch.parse(document)


def test_internal_paths_mandatory_attributes_and_missing_values():
    ok = [{"op": "replace", "path": "/name", "value": "x"}]
    assert patch.check_ops(ok, patch.COMMON_INTERNAL, ("/name",)) == ok
    with pytest.raises(exception.Invalid, match="internal attribute"):
        patch.check_ops([{"op": "replace", "path": "/uuid/x", "value": "y"}],
                        patch.COMMON_INTERNAL, ())
    with pytest.raises(exception.Invalid, match="mandatory attribute"):
        patch.check_ops([{"op": "remove", "path": "/name"}], (), ("/name",))
    with pytest.raises(exception.Invalid, match="needs value"):
        patch.check_ops([{"op": "add", "path": "/name"}], (), ())


def test_apply_adds_replaces_removes_and_reads_dict_literals():
    patched = patch.apply(DOC, [{"op": "replace", "path": "/labels", "value": "{'b': '2'}"},
                                {"op": "add", "path": "/flavor", "value": "m1"},
                                {"op": "remove", "path": "/name"}], ("/labels",))
    assert patched["labels"] == {"b": "2"} and patched["flavor"] == "m1"
    assert patched["name"] is None and DOC["name"] == "n"  # the stored doc is untouched
    assert patch.changed(DOC, patched) == ["flavor", "labels", "name"]
    assert patch.apply(DOC, [{"op": "replace", "path": "/labels",
                              "value": '{"c": "3"}'}], ("/labels",))["labels"] == {"c": "3"}
    for ops, words in (([{"op": "add", "path": "/new", "value": 1}], "not allowed"),
                       ([{"op": "add", "path": "/name", "value": "x"}], "has existed"),
                       ([{"op": "remove", "path": "/labels/zz"}], "Couldn't apply patch"),
                       ([{"op": "replace", "path": "/labels", "value": "{'a': "}],
                        "Couldn't apply patch")):
        with pytest.raises(exception.Invalid, match=words):
            patch.apply(DOC, ops, ("/labels",))


def test_a_literal_is_bounded_before_it_is_evaluated():
    assert patch.literal("[1, {'a': (2,)}]") == [1, {"a": (2,)}]
    assert patch.literal(5) == 5
    with pytest.raises(ValueError, match="nested deeper"):
        patch.literal("[" * 20000 + "]" * 20000)
    with pytest.raises(exception.Invalid, match="NUL"):
        patch.literal("{'a': '\\x00'}")
    with pytest.raises(ValueError):
        patch.literal("__import__('os')")


def test_revalidate_checks_only_what_changed():
    stored = {**DOC, "node_count": 99}  # an older row may hold what today's bounds refuse
    result = patch.revalidate(Node, stored, {**stored, "name": "m", "flavor": "x"})
    assert result["node_count"] == 99 and result["name"] == "m" and result["flavor"] == "x"
    assert patch.revalidate(Node, DOC, {**DOC, "node_count": "3"})["node_count"] == 3
    with pytest.raises(exception.Invalid, match="node_count"):
        patch.revalidate(Node, DOC, {**DOC, "node_count": 6})
