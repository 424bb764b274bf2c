"""Start ``magnum-conductor`` with the tests' stand-in driver registered (test-only launcher)."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import standin_driver

from magnum_conductor import cmd

if __name__ == "__main__":
    standin_driver.install()
    cmd.main(sys.argv[1:])
