"""The uWSGI / mod_wsgi entry point reads the files ``MAGNUM_CONFIG_FILES`` names (in a
process of its own: importing the module configures that process)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from magnum_common import crypto

REPO = pathlib.Path(__file__).resolve().parents[3]
PROBE = """
import webtest
from magnum_api import wsgi
from magnum_common.config import CONF
print("SETTINGS", CONF.auth_strategy, CONF.api.max_node_count, wsgi._argv())
print("VERSION", webtest.TestApp(wsgi.application).get("/v1").json["id"])
"""


def test_the_application_is_configured_from_the_named_files(tmp_path, db):
    first = tmp_path / "a.conf"
    first.write_text(f"[DEFAULT]\nauth_strategy = noauth\n[crypto]\nencryption_key = "
                     f"{crypto.generate_key()}\n[database]\nconnection = {db}\n")
    second = tmp_path / "b.conf"
    second.write_text("[api]\nmax_node_count = 17\n")
    env = {**os.environ, "MAGNUM_CONFIG_FILES": f"{first},,{second}", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    said = dict(line.split(" ", 1) for line in done.stdout.splitlines()
                if line.startswith(("SETTINGS ", "VERSION ")))
    assert said["SETTINGS"] == (f"noauth 17 ['--config-file', '{first}', '--config-file', "
                                f"'{second}']")
    assert said["VERSION"] == "v1"
