"""Which kubectl the main job uses: Debian's installed one, else the one unpacked into the
local cloud's state directory, and only when it is an executable file; ``ensure`` downloads
nothing while one is there (the download itself is the main job's, on the network's side
of apt)."""

from __future__ import annotations

import os

from localcloud.scenario import kubectl


def test_the_installed_or_unpacked_executable_is_found_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("MAGNUM_LOCALCLOUD_DIR", str(tmp_path))
    installed = kubectl._installed()  # the package on this machine, if any
    assert kubectl.find() == installed
    unpacked = tmp_path / kubectl.PACKAGE / "usr" / "bin" / "kubectl"
    unpacked.parent.mkdir(parents=True)
    unpacked.write_text("#!/bin/sh\n")
    assert kubectl.find() == installed  # not executable: not a kubectl
    os.chmod(unpacked, 0o755)
    assert kubectl.find() == (installed or str(unpacked.resolve()))
    assert kubectl.ensure() == kubectl.find()
