"""Memoised inspection for pecan's router, oslo.policy's rule checks and oslo.middleware's
response hook.

pecan inspects a handler's signature a dozen times per request (and builds a new
namedtuple class each time) and lists every attribute of each controller it walks through
(``dir()``, to look for custom path segments it only ever registers once per class);
oslo.policy inspects every check object it evaluates and each oslo.middleware layer
inspects its ``process_response``: together about a third of a small request's CPU. The
inspected callables and classes (our controllers, the policy check classes, the middleware
methods) never change, so each is inspected once per process.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

import oslo_middleware.base
import oslo_policy._checks
import pecan.core
import pecan.decorators
import pecan.rest
import pecan.routing
import pecan.util

_original = pecan.util.getargspec
_cache: dict[Any, Any] = {}


def getargspec(method: Any) -> Any:
    """The shared spec: pecan copies ``args`` before it changes it (core.get_args)."""
    key = getattr(method, "__func__", method)
    spec = _cache.get(key)
    if spec is None:
        spec = _cache[key] = _original(method)
    return spec


_full_cache: dict[Any, inspect.FullArgSpec] = {}
_original_detect = pecan.routing._detect_custom_path_segments
_detected: set[type] = set()


def getfullargspec(func: Any) -> inspect.FullArgSpec:
    key = getattr(func, "__func__", func)
    spec = _full_cache.get(key)
    if spec is None:
        spec = _full_cache[key] = inspect.getfullargspec(func)
    return spec


def detect_custom_path_segments(obj: Any) -> None:
    """pecan's detection, which only registers anything the first time it sees a class."""
    cls = obj.__class__
    if cls not in _detected:
        _original_detect(obj)
        _detected.add(cls)


def install() -> None:
    """Route pecan's, oslo.policy's and oslo.middleware's inspection through the memoised
    versions."""
    for module in (pecan.util, pecan.core, pecan.rest, pecan.routing, pecan.decorators):
        module.getargspec = getargspec
    pecan.routing._detect_custom_path_segments = detect_custom_path_segments
    shim = types.SimpleNamespace(**{name: getattr(inspect, name) for name in dir(inspect)
                                    if not name.startswith("__")})
    shim.getfullargspec = getfullargspec
    oslo_policy._checks.inspect = shim
    oslo_middleware.base.getfullargspec = getfullargspec
