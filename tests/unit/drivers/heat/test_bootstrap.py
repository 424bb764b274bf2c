"""A node's bootstrap files: every fragment in run order, encoded losslessly and
reproducibly, and the runtime placeholders each role gets."""

from __future__ import annotations

import base64
import gzip
import urllib.parse

from drivers.heat import bootstrap


def test_the_fragments_run_in_order_and_the_entrypoint_is_the_command():
    names = [p.name for p in bootstrap.fragment_paths()]
    assert names == sorted(names) and bootstrap.ENTRYPOINT in names
    files = {f.path: f for f in bootstrap.static_files()}
    assert len(files) == len(names)
    command = files["/usr/local/bin/magnum-bootstrap"]
    assert command.content == (bootstrap.FRAGMENTS_DIR / bootstrap.ENTRYPOINT).read_bytes()
    assert all(f.mode_octal == "0755" for f in files.values())
    assert all(p == "/usr/local/bin/magnum-bootstrap" or
               p.startswith(bootstrap.FRAGMENTS_PATH + "/") for p in files)


def test_encodings_give_back_the_bytes_and_are_reproducible():
    script = bootstrap.static_files()[0]
    assert base64.b64decode(script.b64) == script.content
    assert gzip.decompress(base64.b64decode(script.gzip_b64)) == script.content
    assert script.gzip_b64 == bootstrap.static_files()[0].gzip_b64  # no mtime in the gzip
    assert len(script.gzip_b64) < len(script.b64)


def test_masters_get_their_own_placeholders_workers_do_not():
    worker = bootstrap.runtime_env("worker")
    master = bootstrap.runtime_env("master")
    assert worker.splitlines()[0] == "NODE_NAME=@@NODE_NAME@@"
    assert "KUBE_SA_PRIVATE_KEY" not in worker and "KUBE_SA_PRIVATE_KEY=@@" in master
    assert master.startswith(worker)
    context = bootstrap.render_context("master")
    assert urllib.parse.unquote(context["runtime_env_dataurl"][len("data:,"):]) == master
    assert context["runtime_env_lines"] == master.splitlines()
    assert context["unit_file"].content.decode() == bootstrap.UNIT
    assert context["unit_file"].mode_octal == "0644"
    assert "ExecStart=/usr/local/bin/magnum-bootstrap" in bootstrap.UNIT
