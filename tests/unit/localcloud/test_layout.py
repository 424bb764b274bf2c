"""The state directory's layout and its secrets: generated once, kept private, stable."""

from __future__ import annotations

import json
import os
import stat

from localcloud import layout


def test_paths_live_under_the_state_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path / "state"))
    assert layout.state_dir() == str(tmp_path / "state")
    lay = layout.Layout()
    lay.mkdirs()
    assert all(os.path.isdir(d) for d in (lay.etc, lay.logs, lay.run, lay.data, lay.markers))
    assert lay.pidfile("keystone") == os.path.join(lay.run, "keystone.pid")
    assert os.path.isdir(lay.servers_dir()) and lay.servers_dir().startswith(lay.data)
    assert lay.read_tier() is None
    lay.write_tier("full")
    assert lay.read_tier() == "full"


def test_secrets_are_made_once_private_and_completed_when_new_names_appear(tmp_path):
    lay = layout.Layout(str(tmp_path))
    first = layout.load_secrets(lay)
    assert set(layout.SECRET_NAMES) <= set(first) and len(first["octavia_ca_pass"]) == 32
    assert stat.S_IMODE(os.stat(lay.secrets_file).st_mode) == 0o600
    assert layout.load_secrets(lay) == first
    stored = json.loads(open(lay.secrets_file).read())
    del stored["nova"]
    with open(lay.secrets_file, "w") as f:
        json.dump(stored, f)
    again = layout.load_secrets(lay)
    assert again["admin"] == first["admin"] and again["nova"] != first["nova"]
