"""The memoised inspection pecan, oslo.policy and oslo.middleware use: the same answers as
the inspection it replaces, computed once per callable or class."""

from __future__ import annotations

import inspect

import oslo_middleware.base
import oslo_policy._checks
import pecan.routing
import pecan.util

from magnum_api import routing_cache


class Controller:
    def get_one(self, ident, *remainder, **kw):
        return ident


def test_the_cached_specs_are_the_inspected_ones_once_per_callable():
    first = routing_cache.getargspec(Controller().get_one)
    assert first == routing_cache._original(Controller().get_one)
    assert routing_cache.getargspec(Controller().get_one) is first  # another bound method
    full = routing_cache.getfullargspec(Controller.get_one)
    assert full == inspect.getfullargspec(Controller.get_one)
    assert routing_cache.getfullargspec(Controller.get_one) is full


def test_custom_path_segments_are_looked_for_once_per_class(monkeypatch):
    seen: list[type] = []
    monkeypatch.setattr(routing_cache, "_original_detect", lambda obj: seen.append(type(obj)))

    class Fresh:
        pass

    routing_cache.detect_custom_path_segments(Fresh())
    routing_cache.detect_custom_path_segments(Fresh())
    assert seen == [Fresh]


def test_install_routes_every_user_through_the_cache():
    routing_cache.install()
    assert pecan.util.getargspec is routing_cache.getargspec
    assert pecan.routing._detect_custom_path_segments is \
        routing_cache.detect_custom_path_segments
    assert oslo_policy._checks.inspect.getfullargspec is routing_cache.getfullargspec
    assert oslo_policy._checks.inspect.signature is inspect.signature  # the rest is inspect's
    assert oslo_middleware.base.getfullargspec is routing_cache.getfullargspec
