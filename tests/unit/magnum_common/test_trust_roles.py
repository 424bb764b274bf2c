"""The roles a cluster's trust delegates, and the API's refusal when the requester lacks one."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from magnum_common import exception, trust_roles

CONF = cfg.CONF


def test_default_is_member_only_for_a_cluster_without_features():
    assert trust_roles.delegated([], ["admin", "member", "reader"]) == ["member"]
    trust_roles.check(["member", "reader"], [])


def test_features_add_their_roles_once():
    assert trust_roles.delegated(["cloud_provider", "octavia_ingress", "autoscaler"],
                                 ["member", "load-balancer_member", "admin"]) == [
        "member", "load-balancer_member"]


def test_missing_role_is_a_400_naming_the_role_and_the_option():
    with pytest.raises(exception.InvalidParameterValue) as err:
        trust_roles.check(["member", "reader"], ["cinder_csi", "cloud_provider"])
    assert err.value.code == 400
    assert "'load-balancer_member'" in str(err.value)
    assert "[trust] cloud_provider_roles" in str(err.value)
    with pytest.raises(exception.InvalidParameterValue, match=r"\[trust\] roles\)"):
        trust_roles.check(["reader"], [])


def test_role_names_compare_without_case():
    trust_roles.check(["Member"], [])


def test_configured_feature_roles():
    CONF.set_override("autoscaler_roles", ["scaler", "member"], "trust")
    try:
        assert trust_roles.delegated(["autoscaler"], []) == ["member", "scaler"]
        with pytest.raises(exception.InvalidParameterValue,
                           match=r"'scaler' \(\[trust\] autoscaler_roles\)"):
            trust_roles.check(["member"], ["autoscaler"])
    finally:
        CONF.clear_override("autoscaler_roles", "trust")


def test_empty_roles_delegate_the_requesters_roles_unchecked():
    CONF.set_override("roles", [], "trust")
    try:
        assert trust_roles.delegated(["cloud_provider"], ["member", "x"]) == ["member", "x"]
        trust_roles.check([], ["cloud_provider"])
    finally:
        CONF.clear_override("roles", "trust")
