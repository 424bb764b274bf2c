"""Shared fields and view helpers: names, labels as stored, the grammar attached to a body
schema, timestamps and label differences."""

from __future__ import annotations

import datetime

import pytest
from oslo_config import cfg

from magnum_api.schemas import base, fields, types
from magnum_common import exception, grammar

CONF = cfg.CONF


def test_names_start_with_a_letter_and_node_counts_follow_the_configuration():
    name = types.name()
    assert name.validate("k8s-1.a_b") == "k8s-1.a_b"
    for bad in ("1abc", "-a", "a b", "a" * 243):
        with pytest.raises(fields.FieldError):
            name.validate(bad)
    CONF.set_override("max_node_count", 7, "api")
    assert types.node_count().validate(7) == 7
    with pytest.raises(fields.FieldError, match="less or equal to 7"):
        types.node_count().validate(8)


def test_labels_are_stored_as_strings_and_compared_with_the_parent():
    assert types.stringify_labels({"n": 3, "b": True}) == {"n": "3", "b": "True"}
    assert types.stringify_labels(None) is None
    assert types.label_diff({"a": "1", "b": "2"}, {"a": "0", "c": "3"}) == {
        "labels_overridden": {"a": "0"}, "labels_added": {"b": "2"},
        "labels_skipped": {"c": "3"}}


def test_the_grammar_is_checked_with_the_body_schema():
    class Body(base.Body):
        keypair = fields.String(255)

    types.with_grammar(Body, {"keypair": grammar.keypair})
    assert Body.parse({"keypair": "my key"}) == {"keypair": "my key"}
    with pytest.raises(exception.Invalid, match="Invalid keypair: "):
        Body.parse({"keypair": "a;rm -rf /"})


def test_a_merged_value_must_fit_its_column():
    types.check_stored("labels", {"a": "x" * 100})
    with pytest.raises(exception.Invalid, match="at most 65535 bytes"):
        types.check_stored("labels", {"a": "x" * fields.TEXT_BYTES})


def test_timestamps_links_and_readonly_fields():
    naive = datetime.datetime(2024, 5, 1, 9, 20, 58)
    assert types.isotime(naive) == "2024-05-01T09:20:58+00:00"
    aware = datetime.datetime(2024, 5, 1, 11, 20, 58,
                              tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    assert types.isotime(aware) == "2024-05-01T09:20:58+00:00"
    assert types.isotime(None) is None
    assert types.links("http://127.0.0.1:9511", "clusters", "u") == [
        {"href": "http://127.0.0.1:9511/v1/clusters/u", "rel": "self"},
        {"href": "http://127.0.0.1:9511/clusters/u", "rel": "bookmark"}]
    assert types.readonly().readonly and types.readonly(fields.Integer()).readonly
    listing = types.collection("things", types.view({"a": fields.Integer()}))
    assert listing.required == ("things",)


def test_a_grammar_that_is_a_pattern_is_in_the_document():
    """Label names, node-group names and roles, keypairs and the printable references
    carry their grammar as ``pattern``: what the document calls valid, the API takes."""
    import re

    from magnum_api.schemas import cluster, nodegroup

    group = nodegroup.NodeGroupPost.schema()["properties"]
    name = group["name"]["anyOf"][0] if "anyOf" in group["name"] else group["name"]
    assert name["pattern"] == grammar.K8S_NAME_RE.pattern
    labels = group["labels"]["anyOf"][0]
    assert labels["propertyNames"]["pattern"] == grammar.LABEL_KEY_RE.pattern
    body = cluster.ClusterPost.schema()["properties"]
    assert body["keypair"]["anyOf"][0]["pattern"] == grammar.KEYPAIR_RE.pattern
    assert body["flavor_id"]["anyOf"][0]["pattern"] == grammar.PRINTABLE_PATTERN
    for pattern, check, values in (
            (grammar.PRINTABLE_PATTERN, grammar.openstack_ref,
             ["m1.small", "é ü", "a\tb", "a\u2028", "a\x85", "a\x7f"]),
            (grammar.K8S_NAME_RE.pattern, grammar.k8s_name, ["ng-1", "-ng", "a" * 64])):
        for value in values:
            assert bool(re.search(pattern, value)) == (check(value) is None), value
    # the documented pattern does not replace the grammar's own words when it refuses
    with pytest.raises(exception.Invalid, match="Invalid name: expected a Kubernetes name"):
        nodegroup.NodeGroupPost.parse({"name": "-bad"})
