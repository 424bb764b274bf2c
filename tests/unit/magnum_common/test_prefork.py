"""A forking master's preparation: backends imported without a connection kept, and
everything alive frozen for the workers to share."""

from __future__ import annotations

import gc
import subprocess
import sys

SCRIPT = """
import gc, sys
from magnum_common import config, prefork, rpc
config.parse_args(sys.argv[1:], default_config_files=[])
before = "pymysql" in sys.modules
prefork.import_backends()
print(before, "pymysql" in sys.modules, rpc._transport is None)
"""


def test_backends_are_imported_and_no_transport_is_kept(tmp_path):
    conf = tmp_path / "magnum.conf"
    conf.write_text("[DEFAULT]\ntransport_url = rabbit://guest:guest@127.0.0.1:5672/\n"
                    "[database]\nconnection = mysql+pymysql://root@127.0.0.1:3306/test\n")
    out = subprocess.run([sys.executable, "-c", SCRIPT, "--config-file", str(conf)],
                         capture_output=True, text=True, check=True, timeout=120).stdout
    assert out.split("\n")[-2] == "False True True"


def test_freeze_moves_what_is_alive_out_of_the_collectors_reach():
    from magnum_common import prefork

    try:
        prefork.freeze()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
