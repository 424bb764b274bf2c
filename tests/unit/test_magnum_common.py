"""Importing magnum_common first selects oslo.service's threading backend and keeps eventlet
out, so no Magnum process loads a green-thread runtime (a fresh interpreter, as a service
starts)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import sys
import magnum_common
import oslo_messaging, futurist
from oslo_service import backend
backend.get_backend()
print(backend.get_backend_type().name, sys.modules.get("eventlet", "absent"))
"""


def test_the_threading_backend_and_no_eventlet():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=120).stdout.split()
    assert out == ["THREADING", "None"]
