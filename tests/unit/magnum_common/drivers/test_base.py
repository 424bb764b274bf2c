"""The driver contract: what a driver must implement, what it inherits (refusals of the
optional operations, labels after an upgrade, the size checks), and ``supports``."""

from __future__ import annotations

import types

import pytest

from magnum_common import exception
from magnum_common.drivers import base


class Minimal(base.Driver):
    """Implements exactly the abstract methods, each recording its call."""

    name = "minimal"
    provides = [base.Provides("vm", "tinyos", "kubernetes")]

    def __init__(self, found: dict[str, base.StackState] | None = None) -> None:
        self.found = found or {}
        self.asked: list[tuple] = []

    def stack_states(self, session, stack_ids, as_service=False):
        self.asked.append((session, tuple(stack_ids), as_service))
        return base.StackPoll({i: self.found[i] for i in stack_ids if i in self.found}, 1)


for _name in sorted(base.Driver.__abstractmethods__ - {"provides", "stack_states"}):
    setattr(Minimal, _name, lambda self, *a, **k: None)
Minimal.__abstractmethods__ = frozenset()


class Rotating(Minimal):
    def rotate_ca_certificate(self, res, view):
        return None


class Resources:
    def session(self):
        return "service-session"


def test_a_driver_missing_an_operation_cannot_be_made():
    class Partial(base.Driver):
        name = "partial"
        provides = []

    with pytest.raises(TypeError, match="abstract"):
        Partial()
    assert {"create_cluster", "delete_cluster", "stack_states", "find_stacks"} <= \
        base.Driver.__abstractmethods__


def test_optional_operations_are_refused_unless_implemented():
    driver, rotating = Minimal(), Rotating()
    assert driver.get_driver_type() == "minimal"
    assert not driver.supports("rotate_ca_certificate")
    assert rotating.supports("rotate_ca_certificate")
    assert not rotating.supports("rotate_credential")
    with pytest.raises(exception.NotSupported, match="Rotating the CA certificate"):
        driver.rotate_ca_certificate(Resources(), None)
    with pytest.raises(exception.NotSupported, match="Rotating the cluster credentials"):
        rotating.rotate_credential(Resources(), None)


def test_inherited_behaviour():
    driver = Minimal()
    row = types.SimpleNamespace(labels={"kube_tag": "v1.29.0", "a": "1"})
    new = types.SimpleNamespace(labels={"kube_tag": "v1.30.0"})
    assert driver.upgraded_labels(row, new) == {"kube_tag": "v1.30.0", "a": "1"}
    assert driver.upgraded_labels(types.SimpleNamespace(labels=None),
                                  types.SimpleNamespace(labels=None)) == {}
    assert driver.failure_details(Resources(), "s") == ""
    assert driver.get_monitor(Resources(), None) is None
    driver.validate_labels({"anything": "goes"})
    assert base.StackOutputs().node_addresses == {} and base.StackPoll().requests == 0


def test_stacks_are_gone_only_when_a_lookup_as_the_service_finds_none():
    alive = base.StackState("s-2", "DELETE_IN_PROGRESS")
    driver = Minimal({"s-2": alive})
    assert not driver.stacks_gone(Resources(), ["s-1", "s-2"])
    assert driver.stacks_gone(Resources(), ["s-1"])
    assert driver.asked == [("service-session", ("s-1", "s-2"), True),
                            ("service-session", ("s-1",), True)]


def test_master_counts_are_odd_and_masters_are_not_resized():
    driver = Minimal()
    for good in (1, 3, 5):
        driver.validate_master_size(good)
    for bad in (0, 2, 4, -1):
        with pytest.raises(exception.MasterNGSizeInvalid):
            driver.validate_master_size(bad)
    with pytest.raises(exception.MasterNGResizeNotSupported):
        driver.validate_master_resize(3)
    assert driver.trust_features({"cloud_provider_enabled": "true"}, None) == []
