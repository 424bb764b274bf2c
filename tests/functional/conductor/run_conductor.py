"""Start ``magnum-conductor`` with the tests' stand-in driver registered (test-only launcher)."""

from __future__ import annotations

import os
import pathlib
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

if "FAKETIME" in os.environ:
    # Under libfaketime 0.9.10 (clock skew tests, FAKETIME_DONT_FAKE_MONOTONIC=1) timed
    # waits work but clock_nanosleep fails with EINVAL: sleep through a timed wait.
    _wait = threading.Event().wait
    time.sleep = lambda seconds: None if _wait(seconds) else None

import standin_driver

from magnum_conductor import cmd

if __name__ == "__main__":
    standin_driver.install()
    cmd.main(sys.argv[1:])
